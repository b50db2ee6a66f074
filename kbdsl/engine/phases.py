"""The phases of play (`State.phase`), apart so that the fixed part of a game (setup) reads them too."""

#: The phases of play (`State.phase`): the players' turns, the phases of the grants, and a
#: reaction on another player's turn (offered when a tile hex's last tile is taken).
TURNS, START, END, REACT = 0, 1, 2, 3
PHASES = {"turns": TURNS, "start-of-game": START, "end-of-game": END, "last-tile-taken": REACT}
