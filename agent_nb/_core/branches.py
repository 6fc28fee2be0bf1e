"""A session's turns as a tree, and the numbered branches through it.

Nothing is ever deleted from a session: every event appended stays, and each
turn (invocation) names the turn it followed (its *parent*; None for a first
turn). The turns form a tree; a **branch** is a line through it, kept as the
id of its last turn (its *leaf*; None for an empty line). One branch is
active: its path, root to leaf, is what the model sees and what
``session.history`` returns.

Why branches are numbered lines rather than "the leaves of the tree":

* **Numbers stay put.** A rewind (a re-run cell) cuts the active line back to
  the replaced turn's parent and gives the cut-off part the *next* number,
  so "moved to branch 2" stays true until that branch is deleted; the active
  line keeps its number and goes on from the cut. A switch only changes which
  number is active. New turns extend the active line.
* **Everything stays reachable.** A tree leaf only ever becomes a line's leaf
  by being appended on it, and a line only leaves a leaf behind by a rewind,
  which hands it to a new line, so every recorded turn is on some branch.

These are pure functions over plain values; the stores keep the values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .types import Event

__all__ = [
    "Branch",
    "Fork",
    "TurnNode",
    "branch_list",
    "forks_on_path",
    "path_events",
    "path_turns",
    "rewound_branches",
    "turn_order",
    "turn_tree",
]

Parents = Mapping[str, "str | None"]


def path_turns(parents: Parents, leaf: str | None) -> list[str]:
    """Turn ids from the root to ``leaf`` (empty for None)."""
    turns: list[str] = []
    while leaf is not None:
        turns.append(leaf)
        leaf = parents[leaf]
    turns.reverse()
    return turns


def path_events(tree: Sequence[Event], parents: Parents, leaf: str | None) -> list[Event]:
    """The events of the path to ``leaf``, in the order they were appended."""
    on_path = set(path_turns(parents, leaf))
    return [e for e in tree if e.invocation_id in on_path]


def turn_order(tree: Sequence[Event]) -> list[str]:
    """Every turn id, in the order each turn began."""
    return list(dict.fromkeys(e.invocation_id for e in tree))


def rewound_branches(
    branches: Sequence[str | None], active: int, parents: Parents, turn: str
) -> list[str | None]:
    """``branches`` after a rewind of the active branch to just before ``turn``:
    the active line ends at ``turn``'s parent, the cut-off part is a new last branch."""
    leaf = branches[active - 1]
    if turn not in path_turns(parents, leaf):
        raise ValueError(f"turn {turn!r} is not on the active branch {active}")
    moved = list(branches)
    moved[active - 1] = parents[turn]
    moved.append(leaf)
    return moved


@dataclass(frozen=True)
class Branch:
    """One numbered line through a session's turns (``session.branches()``)."""

    number: int
    active: bool
    leaf: str | None  # the invocation id of its last turn (None: no turn yet)
    turns: tuple[str, ...]  # its path, first turn first
    shared: int  # how many of its first turns it shares with the active branch

    @property
    def own_turns(self) -> tuple[str, ...]:
        """The turns the active branch does not have (all of them for the active one)."""
        return self.turns if self.active else self.turns[self.shared :]


def branch_list(parents: Parents, branches: Sequence[str | None], active: int) -> list[Branch]:
    active_path = path_turns(parents, branches[active - 1])
    out = []
    for number, leaf in enumerate(branches, start=1):
        turns = path_turns(parents, leaf)
        shared = 0
        for mine, theirs in zip(turns, active_path, strict=False):
            if mine != theirs:
                break
            shared += 1
        out.append(Branch(number, number == active, leaf, tuple(turns), shared))
    return out


@dataclass(frozen=True)
class Fork:
    """Where the active path chose one of several sibling turns (the widget's ‹ i/n ›)."""

    invocation_id: str  # the active path's turn at this fork
    position: int  # 1-based among its siblings, oldest first
    count: int
    prev_branch: int | None  # the branch to switch to for the previous sibling
    next_branch: int | None


def forks_on_path(
    order: Sequence[str], parents: Parents, branches: Sequence[str | None], active: int
) -> list[Fork]:
    """Every fork along the active path. A sibling's arrow goes to the active
    branch if it passes through it, else to the lowest-numbered one that does."""
    paths = [path_turns(parents, leaf) for leaf in branches]
    via: dict[str, int] = {}
    for number in [active, *range(1, len(branches) + 1)]:
        for turn in paths[number - 1]:
            via.setdefault(turn, number)
    children: dict[str | None, list[str]] = {}
    for turn in order:
        if turn in via:
            children.setdefault(parents[turn], []).append(turn)
    forks = []
    for turn in paths[active - 1]:
        siblings = children[parents[turn]]
        if len(siblings) < 2:
            continue
        i = siblings.index(turn)
        forks.append(
            Fork(
                turn,
                i + 1,
                len(siblings),
                via[siblings[i - 1]] if i > 0 else None,
                via[siblings[i + 1]] if i + 1 < len(siblings) else None,
            )
        )
    return forks


@dataclass(frozen=True)
class TurnNode:
    """One turn of the whole tree (``session.tree()``)."""

    invocation_id: str
    parent: str | None  # the turn it followed (None: a first turn)
    events: tuple[Event, ...]
    branches: tuple[int, ...]  # the branches whose path holds it
    active: bool  # on the active path


def turn_tree(
    tree: Sequence[Event], parents: Parents, branches: Sequence[str | None], active: int
) -> list[TurnNode]:
    """Every turn, in the order they began, with the branches that hold it."""
    events: dict[str, list[Event]] = {}
    for event in tree:
        events.setdefault(event.invocation_id, []).append(event)
    branches_with: dict[str, list[int]] = {}
    for number, leaf in enumerate(branches, start=1):
        for turn in path_turns(parents, leaf):
            branches_with.setdefault(turn, []).append(number)
    return [
        TurnNode(
            turn,
            parents[turn],
            tuple(evs),
            tuple(branches_with.get(turn, ())),
            active in branches_with.get(turn, ()),
        )
        for turn, evs in events.items()
    ]
