"""The phases of play (`State.phase`), the lowest layer of the engine: the players' turns, the
phases that only granted actions fill (kbdsl.engine.grants), and a reaction on another player's
turn. `BaseGame` resolves each grant's `phase` setting through `PHASES`."""

TURNS, START, END, REACT = 0, 1, 2, 3
PHASES = {"turns": TURNS, "start-of-game": START, "end-of-game": END, "last-tile-taken": REACT}
