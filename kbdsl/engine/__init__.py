"""The turn engine, one module per concern, each importing only the ones listed before it.

- `setup`: `Setup` and `BaseGame`, the fixed part of a game (rules, board, tables, action codes);
- `pieces`: who stands where (occupancy bitsets per player) and the supplies;
- `kinds`: pieces of the other player-owned kinds placed by tiles (auras, footprints, own supplies);
- `zones`: the terrain cards: deck, hands, discard pile, cards out of the game;
- `hand`: the card zones the turn block states (hand size, when hands are filled, what is
  discarded, identical cards played as any terrain) and a hand of several cards to choose from;
- `gold`: gold won during play, per player and source;
- `tiles`: location tiles held by players, how they are gained, used and lost;
- `groups`: the moves of many pieces at once, counted and drawn without listing them;
- `targets`: the hexes an action may choose (evaluation contexts, lifted moves);
- `turn`: the turn flow: legal moves as action codes and applying them (the hot path);
- `explain` and `events`: why a move is refused, what a played move changed;
- `state`: `State`, the checked, atomic, serialisable moment of play built on all of them.

The layers are base classes of `State` rather than objects it holds, so the hot path reads
plain attributes of one object (python-chess layers `BaseBoard` under `Board` the same way).
"""
