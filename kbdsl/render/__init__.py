"""Pictures of boards and positions: `terminal` (text for the play command) and `svg` (images)."""
