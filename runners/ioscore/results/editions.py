"""What-if scoring: named scoring editions and visitors' own formulas over a run's phase values.

A list ranked under an edition or a formula is a view, never an official score: the official
scores stay the ones ``scoring.recompute_scores`` gives. The formula language is parsed with
``ast`` into a tree of a few permitted node types and evaluated by walking that tree, so no
Python code ever runs; its size is bounded before and after parsing, and every number is a
float, so ``**`` cannot build huge integers.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ioscore.results.model import BW_PHASES, MD_PHASES, SCORED_PHASES
from ioscore.results.scoring import geometric_mean

MAX_FORMULA_CHARS = 300
MAX_FORMULA_NODES = 120
MAX_EXPONENT = 16.0

RND4K_READ = "ior-rnd4K-easy-read"
# Entries from before the random read existed stand in 1 % of their ior-easy-read, as proposed
# in the IO500 committee's discussion of adding the phase to the score.
RND4K_STAND_IN_FRACTION = 0.01


class FormulaError(ValueError):
    """A formula that cannot be parsed or uses something the language does not have."""


def variable_name(phase: str) -> str:
    """A phase's name in formulas: dashes become underscores (``ior_easy_write``)."""
    return phase.replace("-", "_")


SCORE_VARIABLES = ("bw", "md", "total")
PHASE_VARIABLES = tuple(variable_name(p) for p in (*SCORED_PHASES, RND4K_READ))


def _geomean(*values: float) -> float:
    return geometric_mean(values, skip_zeros=False)


def _mean(*values: float) -> float:
    return sum(values) / len(values)


_FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "min": min,
    "max": max,
    "geomean": _geomean,
    "mean": _mean,
}
FORMULA_FUNCTIONS = tuple(sorted(_FUNCTIONS))
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


@dataclass(frozen=True)
class Formula:
    """A parsed formula; ``value`` gives None where a run lacks a value or the maths fails."""

    text: str
    tree: ast.expr
    variables: frozenset[str]

    def value(self, values: Mapping[str, float]) -> float | None:
        if not self.variables <= values.keys():
            return None
        try:
            result = _evaluate(self.tree, values)
        except (ArithmeticError, ValueError):
            return None
        return result if math.isfinite(result) else None


def parse_formula(text: str) -> Formula:
    """Parse a visitor's formula, e.g. ``sqrt(bw * md)`` or ``geomean(ior_easy_read, find)``."""
    text = text.strip()
    if not text:
        raise FormulaError("the formula is empty")
    if len(text) > MAX_FORMULA_CHARS:
        raise FormulaError(f"the formula is longer than {MAX_FORMULA_CHARS} characters")
    for phase in (*SCORED_PHASES, RND4K_READ):
        if "-" in phase and phase in text:
            raise FormulaError(f"write {phase} as {variable_name(phase)}")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"not a formula: {exc.msg} at character {exc.offset}") from None
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_FORMULA_NODES:
        raise FormulaError(f"the formula has more than {MAX_FORMULA_NODES} parts")
    variables: set[str] = set()
    for node in nodes:
        _check_node(node, variables)
    return Formula(text=text, tree=tree, variables=frozenset(variables))


def _check_node(node: ast.AST, variables: set[str]) -> None:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise FormulaError(f"only numbers may be written in a formula, not {node.value!r}")
    elif isinstance(node, ast.Name):
        if node.id in _FUNCTIONS:
            return  # checked as the callee of its Call
        if node.id not in SCORE_VARIABLES and node.id not in PHASE_VARIABLES:
            raise FormulaError(f"unknown name {node.id!r}; names are {known_names()}")
        variables.add(node.id)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise FormulaError(f"unknown function; functions are {', '.join(FORMULA_FUNCTIONS)}")
        if node.keywords or not node.args:
            raise FormulaError(f"{node.func.id}() takes one or more values, nothing else")
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY and not isinstance(node.op, ast.Pow):
            raise FormulaError("operators are + - * / ** and parentheses")
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, ast.UAdd | ast.USub):
            raise FormulaError("operators are + - * / ** and parentheses")
    elif not isinstance(node, ast.Load | ast.operator | ast.unaryop):
        raise FormulaError(f"{type(node).__name__} is not part of the formula language")


def known_names() -> str:
    return ", ".join((*SCORE_VARIABLES, *PHASE_VARIABLES))


def _evaluate(node: ast.expr, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant):
        assert isinstance(node.value, int | float)  # _check_node admitted only numbers
        return float(node.value)
    if isinstance(node, ast.Name):
        return float(values[node.id])
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _evaluate(node.left, values)
        right = _evaluate(node.right, values)
        if isinstance(node.op, ast.Pow):
            if abs(right) > MAX_EXPONENT:
                raise ValueError("exponent out of range")
            return float(left**right)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return float(_FUNCTIONS[node.func.id](*(_evaluate(a, values) for a in node.args)))
    raise FormulaError(f"{type(node).__name__} is not part of the formula language")


def formula_values(
    phases: Mapping[str, float], bw: float, md: float, total: float
) -> dict[str, float]:
    """The variables a formula sees for one entry: its scores and every phase value it has."""
    values = {variable_name(name): value for name, value in phases.items()}
    values.update(bw=bw, md=md, total=total)
    return values


@dataclass(frozen=True)
class Edition:
    """A named way of scoring a list, beside the official one."""

    slug: str
    title: str
    explanation: str
    score: Callable[[Mapping[str, float]], float | None]


def _score_from_groups(bw_values: list[float], md_values: list[float]) -> float | None:
    bw = geometric_mean(bw_values, skip_zeros=True)
    md = geometric_mean(md_values, skip_zeros=True)
    return math.sqrt(bw * md) if bw > 0 and md > 0 else None


def _official(phases: Mapping[str, float]) -> float | None:
    if not all(p in phases for p in (*BW_PHASES, *MD_PHASES)):
        return None
    return _score_from_groups([phases[p] for p in BW_PHASES], [phases[p] for p in MD_PHASES])


def _with_rnd4k(phases: Mapping[str, float]) -> float | None:
    if not all(p in phases for p in (*BW_PHASES, *MD_PHASES)):
        return None
    rnd4k = phases.get(RND4K_READ)
    if rnd4k is None:
        rnd4k = RND4K_STAND_IN_FRACTION * phases["ior-easy-read"]
    bw = [phases[p] for p in BW_PHASES] + [rnd4k]
    return _score_from_groups(bw, [phases[p] for p in MD_PHASES])


def _metadata_in_miops(phases: Mapping[str, float]) -> float | None:
    if not all(p in phases for p in (*BW_PHASES, *MD_PHASES)):
        return None
    return _score_from_groups(
        [phases[p] for p in BW_PHASES], [phases[p] / 1000.0 for p in MD_PHASES]
    )


def _without_find(phases: Mapping[str, float]) -> float | None:
    md_phases = [p for p in MD_PHASES if p != "find"]
    if not all(p in phases for p in (*BW_PHASES, *md_phases)):
        return None
    return _score_from_groups([phases[p] for p in BW_PHASES], [phases[p] for p in md_phases])


EDITIONS: dict[str, Edition] = {
    e.slug: e
    for e in (
        Edition(
            "official",
            "Official score",
            "sqrt(BW x MD): BW the geometric mean of the 4 IOR phases in GiB/s, MD of the 8 "
            "metadata phases in kIOPS.",
            _official,
        ),
        Edition(
            "with-rnd4k",
            "With the random 4 KiB read",
            "ior-rnd4K-easy-read joins the BW group; an entry without it stands in 1 % of its "
            "ior-easy-read.",
            _with_rnd4k,
        ),
        Edition(
            "md-in-miops",
            "Metadata in MIOPS",
            "The metadata phases in MIOPS instead of kIOPS. A geometric mean does not care "
            "about units: the order stays the official one and every score is sqrt(1000) = "
            "31.6 times smaller.",
            _metadata_in_miops,
        ),
        Edition(
            "without-find",
            "Without find",
            "MD is the geometric mean of the 7 mdtest phases; find is left out.",
            _without_find,
        ),
    )
}


@dataclass(frozen=True)
class Reranked:
    key: object  # the caller's identity of the entry
    official_rank: int
    score: float | None
    rank: int | None  # None: the entry has no score under this view
    change: int | None  # official_rank - rank: positive moved up


def rerank(
    entries: list[tuple[object, int, float | None]],
) -> list[Reranked]:
    """Rank (key, official rank, score) triples by score, highest first; ties keep list order.

    Entries without a score come last, unranked, in their official order.
    """
    scored = sorted(
        ((k, official, s) for k, official, s in entries if s is not None),
        key=lambda e: (-e[2], e[1]),
    )
    out = [
        Reranked(k, official, s, i + 1, official - (i + 1))
        for i, (k, official, s) in enumerate(scored)
    ]
    unscored = sorted(((k, o) for k, o, s in entries if s is None), key=lambda e: e[1])
    out.extend(Reranked(k, o, None, None, None) for k, o in unscored)
    return out
