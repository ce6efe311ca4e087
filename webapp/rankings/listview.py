"""The state of a list view (sort, columns, filters, search, page, what-if scoring) and the
query behind it.

The list page, its CSV/JSON downloads and the API's entries endpoint all parse the same query
string with ``ViewState.from_query`` and read rows with ``entry_queryset`` (the page and the
API page through ``ListRows``), so every view of a list gives the same rows and the same
numbers. Re-sorting changes only the display order; the rank shown is always the frozen
``ListEntry.rank``. A what-if view (``whatif.Scoring``: an edition or a formula) adds each
entry's score and rank under it beside the official ones (``WhatIfRows``), and is ordered
by that rank unless another column is picked.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, overload
from urllib.parse import urlencode

from django.contrib.postgres.fields import ArrayField
from django.core.cache import cache
from django.core.exceptions import EmptyResultSet
from django.db import connections, transaction
from django.db.models import (
    BigIntegerField,
    BooleanField,
    Case,
    F,
    Func,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Lower

from ioscore_site.whole_numbers import whole_number
from submissions.models import LEVEL_ORDER, Release, ReproducibilityLevel, Submission

from .maintenance.list_index import search_keys
from .models import ListEntry, ListFacet
from .phases import PHASES, field_name, unit
from .whatif import Reranking, Scoring, reranked


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    sort: str  # queryset expression name to order by
    numeric: bool = False
    unit: str = ""


# Text columns fall back to the entities when the flattened description is blank.
COLUMNS: dict[str, Column] = {
    c.key: c
    for c in [
        Column("rank", "Rank", "position", numeric=True),
        Column("release", "Release", "origin_date"),
        Column("institution", "Institution", "institution"),
        Column("system", "System", "system"),
        Column("vendor", "Storage vendor", "storage_vendor"),
        Column("fs_type", "FS type", "fs_type"),
        Column("client_nodes", "Client nodes", "client_nodes", numeric=True),
        Column("procs", "Total procs", "total_procs", numeric=True),
        Column("score", "Score", "score", numeric=True),
        Column("bw", "BW", "bw", numeric=True, unit="GiB/s"),
        Column("md", "MD", "md", numeric=True, unit="kIOPS"),
        Column("bw_rank", "BW rank", "bw_rank", numeric=True),
        Column("md_rank", "MD rank", "md_rank", numeric=True),
        Column("level", "Reproducibility", "level_order"),
        *[Column(field_name(p), p, field_name(p), numeric=True, unit=unit(p)) for p in PHASES],
    ]
}
DEFAULT_COLUMNS = (
    "rank",
    "release",
    "institution",
    "system",
    "vendor",
    "fs_type",
    "client_nodes",
    "procs",
    "score",
    "bw",
    "md",
    "level",
)
ALWAYS_SHOWN = ("rank",)
PAGE_SIZES = (25, 50, 100, 200)
DEFAULT_PAGE_SIZE = 50
LEVEL_LABELS = dict(ReproducibilityLevel.choices)
MAX_INT32 = 2**31 - 1  # the columns the numeric filters compare with are 32-bit


# Columns where smaller is better or that count resources: ascending first, like the ranks.
ASCENDING_FIRST = ("rank", "bw_rank", "md_rank", "client_nodes", "procs")


# The sort of a what-if view by its own rank (no stored column: ``WhatIfRows`` orders it).
WHATIF_SORT = "whatif"


def descending_by_default(key: str) -> bool:
    """A column's first sort direction: measured values highest first, the rest ascending
    (the what-if rank too)."""
    return key in COLUMNS and COLUMNS[key].numeric and key not in ASCENDING_FIRST


class ViewStateError(ValueError):
    """A query-string value we cannot use; the message names the parameter."""


def _int(query: Any, name: str, minimum: int, maximum: int) -> int | None:
    text = (query.get(name) or "").strip()
    if not text:
        return None
    shown = text if len(text) <= 40 else text[:40] + "..."
    # Bounded before int(): a long digit string is out of range without converting it.
    value = whole_number(text, signed=True, max_digits=12)
    if value is None:
        raise ViewStateError(
            f"parameter {name!r} must be a whole number from {minimum} to {maximum}, got {shown!r}"
        )
    if not minimum <= value <= maximum:
        raise ViewStateError(f"parameter {name!r} must be from {minimum} to {maximum}, got {value}")
    return value


@dataclass
class ViewState:
    sort: str = "rank"
    descending: bool = False
    columns: tuple[str, ...] = DEFAULT_COLUMNS
    fs_type: str = ""
    vendor: str = ""
    year: int | None = None
    nodes_min: int | None = None
    nodes_max: int | None = None
    level: str = ""
    q: str = ""
    page: int = 1
    per_page: int = DEFAULT_PAGE_SIZE
    scoring: Scoring = field(default_factory=Scoring)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def from_query(cls, query: Any) -> ViewState:
        """Parse the query string. Unknown or bad values are reported in ``errors`` (shown
        on the page, 400 in the API) and replaced by the default, never a traceback."""
        state = cls()
        state.scoring, state.errors = Scoring.from_query(query)
        state.sort = state.default_sort
        sort = (query.get("sort") or state.default_sort).strip()
        if sort in COLUMNS or (sort == WHATIF_SORT and state.scoring.active):
            state.sort = sort
        elif sort != WHATIF_SORT:  # a what-if link's sort, back on the official list: its rank
            shown = sort if len(sort) <= 40 else sort[:40] + "..."
            state.errors.append(f"parameter 'sort': unknown column {shown!r}")
        direction = (query.get("dir") or "").strip()
        if direction not in ("", "asc", "desc"):
            state.errors.append(f"parameter 'dir' must be 'asc' or 'desc', got {direction!r}")
        state.descending = direction == "desc" or (
            direction == "" and descending_by_default(state.sort)
        )
        # "cols=a,b" (permalinks) or repeated "col=a&col=b" (the column checkboxes).
        picked = query.getlist("col") if hasattr(query, "getlist") else []
        cols = ",".join(picked) if picked else query.get("cols")
        if cols:
            keys = [c for c in cols.split(",") if c]
            unknown = [c for c in keys if c not in COLUMNS]
            if unknown:
                state.errors.append(f"parameter 'cols': unknown column(s) {', '.join(unknown)}")
            chosen = [c for c in keys if c in COLUMNS]
            state.columns = tuple(dict.fromkeys([*ALWAYS_SHOWN, *chosen]))
        state.fs_type = (query.get("fs") or "").strip()
        state.vendor = (query.get("vendor") or "").strip()
        state.level = (query.get("level") or "").strip()
        if state.level and state.level not in LEVEL_LABELS and state.level != "none":
            state.errors.append(f"parameter 'level': unknown level {state.level!r}")
            state.level = ""
        state.q = _search_words(query.get("q") or "")
        for name, attr, minimum, maximum in (
            ("year", "year", 1900, 9999),
            ("nodes_min", "nodes_min", 0, MAX_INT32),
            ("nodes_max", "nodes_max", 0, MAX_INT32),
            ("page", "page", 1, MAX_INT32),
            ("per_page", "per_page", 1, max(PAGE_SIZES)),
        ):
            try:
                value = _int(query, name, minimum, maximum)
            except ViewStateError as error:
                state.errors.append(str(error))
                continue
            if value is not None:
                setattr(state, attr, value)
        if state.per_page not in PAGE_SIZES:
            state.errors.append(
                f"parameter 'per_page' must be one of {', '.join(map(str, PAGE_SIZES))}"
            )
            state.per_page = DEFAULT_PAGE_SIZE
        return state

    @property
    def default_sort(self) -> str:
        return WHATIF_SORT if self.scoring.active else "rank"

    def query(self, **overrides: Any) -> str:
        """The permalink query string of this state (defaults omitted), with overrides."""
        default = self.default_sort
        values: dict[str, Any] = {
            "edition": self.scoring.edition_param,
            "formula": self.scoring.formula_text,
            "sort": self.sort if self.sort != default else "",
            "dir": ("desc" if self.descending else "asc") if self.sort != default else "",
            "cols": ",".join(self.columns) if self.columns != DEFAULT_COLUMNS else "",
            "fs": self.fs_type,
            "vendor": self.vendor,
            "year": self.year or "",
            "nodes_min": "" if self.nodes_min is None else self.nodes_min,
            "nodes_max": "" if self.nodes_max is None else self.nodes_max,
            "level": self.level,
            "q": self.q,
            "per_page": self.per_page if self.per_page != DEFAULT_PAGE_SIZE else "",
            "page": self.page if self.page != 1 else "",
        }
        values.update(overrides)
        return urlencode({k: v for k, v in values.items() if v not in ("", None)})

    def cache_text(self, paged: bool = True) -> str:
        """What a response of this view depends on, normalised (``page_cache``'s key): the
        permalink and the errors reported. ``paged`` False for the downloads and the API,
        which read neither the page nor the columns."""
        text = self.query() if paged else self.query(page="", per_page="", cols="")
        return "\n".join([text, *self.errors, self.scoring.error])

    @property
    def filtered(self) -> bool:
        return bool(
            self.fs_type
            or self.vendor
            or self.year
            or self.level
            or self.q
            or self.nodes_min is not None
            or self.nodes_max is not None
        )


MAX_SEARCH_LENGTH = 200


def _search_words(text: str) -> str:
    """The search as typed, bounded, with control characters (never in a name; the search
    text separates its fields with one) turned into spaces."""
    text = text[: MAX_SEARCH_LENGTH * 2]
    return "".join(" " if ch < " " or ch == "\x7f" else ch for ch in text).strip()[
        :MAX_SEARCH_LENGTH
    ]


def _level_order_expression() -> Any:
    return Case(
        *[When(level=level, then=Value(index)) for index, level in enumerate(LEVEL_ORDER)],
        default=Value(-1),
        output_field=IntegerField(),
    )


def annotated_entries(entries: QuerySet[ListEntry], records: bool = False) -> QuerySet[ListEntry]:
    """Entries with everything a row shows. The display columns are flattened onto the entry
    by the builder, so this joins only the origin release: the planner's work (not the
    execution) dominated when the row data came from eight joined tables. ``records`` adds
    the IO500 id that downloads and the API carry (``records.entry_record``); the page does
    not show it. It is a per-row subquery, not a join: a join hashed every submission
    before the sort and limit (a sequential scan of 100,000 rows for a page of 50), while
    PostgreSQL evaluates the subquery for the returned rows only."""
    qs = entries.select_related("origin_release").annotate(
        origin_date=F("origin_release__release_date"),
        origin_acronym=F("origin_release__acronym"),
    )
    if not records:
        return qs
    one = Submission.objects.filter(pk=OuterRef("submission_id")).order_by()
    io500_id = one.values("io500_id")[:1]
    return qs.annotate(io500_id=Subquery(io500_id))


def filtered_entries(
    entries: QuerySet[ListEntry], state: ViewState, list_id: int | None = None
) -> QuerySet[ListEntry]:
    """The view's filters on plain entry columns; what they need of the releases (the year,
    an acronym searched for) and, given the entries' list, the search keys matching the
    search (``list_index``) are looked up first, so counting never joins."""
    qs = entries
    if state.fs_type:
        qs = qs.filter(fs_type__iexact=state.fs_type)
    if state.vendor and list_id is not None:
        # The list's spellings of it (its stored filter choices): an equality the vendor's
        # list index (models.SORTED_COLUMNS) finds, where a case-blind compare read every
        # entry of the list.
        spellings = ListFacet.objects.filter(
            ranked_list_id=list_id, storage_vendor__iexact=state.vendor
        ).values_list("storage_vendor", flat=True)
        qs = qs.filter(storage_vendor__in=sorted(set(spellings)))
    elif state.vendor:
        qs = qs.filter(storage_vendor__iexact=state.vendor)
    if state.year:
        releases = Release.objects.filter(release_date__year=state.year).values_list(
            "pk", flat=True
        )
        qs = qs.filter(origin_release_id__in=list(releases))
    if state.nodes_min is not None:
        qs = qs.filter(client_nodes__gte=state.nodes_min)
    if state.nodes_max is not None:
        qs = qs.filter(client_nodes__lte=state.nodes_max)
    if state.level == "none":
        qs = qs.filter(level="")
    elif state.level:
        qs = qs.filter(level=state.level)
    if state.q:
        qs = qs.filter(_search(state.q, list_id))
    return qs


def _search(q: str, list_id: int | None) -> Q:
    """Entries whose display text contains ``q`` (any case), or from the release it names.

    Given the list, its distinct texts are searched (a tenth of its entries at 100,000) and
    entries are picked by the keys of the matching ones, a column the list-order index
    carries; entries under a key shared with a non-matching text (``list_index``) and any
    query without the list test the stored lower-cased ``search_text`` with LIKE. Either way
    the pattern is lowered by PostgreSQL like the column (so both agree on every character)
    and ``%``, ``_`` and ``\\`` in it are escaped. The release acronym is looked up first
    (a few dozen rows) so the entry query needs no join."""
    matches = Q(search_text__contains=Lower(Value(q)))
    if list_id is not None:
        keys = search_keys(list_id, q)
        if keys.inverted and not keys.keys and not keys.shared:
            return Q()  # every text matches (an empty Q would vanish in the OR below)
        if not keys.inverted:
            by_key = Q(_KeyIn(keys.keys))
        else:  # the keys of the texts without it ("cluster" is in every generated name)
            by_key = ~Q(_KeyIn(keys.keys)) if keys.keys else Q()
        if keys.shared:
            by_key &= ~Q(_KeyIn(keys.shared))
            by_key |= Q(_KeyIn(keys.shared)) & matches
        matches = by_key
    releases = list(Release.objects.filter(acronym__iexact=q).values_list("pk", flat=True))
    return matches | Q(origin_release_id__in=releases) if releases else matches


class _KeyIn(Func):
    """``search_key = ANY(keys)``: one array parameter (``__in`` sent 10,000 placeholders
    for a search matching most of a list), which PostgreSQL tests with a hash table."""

    arg_joiner = " = ANY("
    template = "(%(expressions)s::bigint[]))"
    output_field = BooleanField()

    def __init__(self, keys: list[int]):
        array = Value(keys, output_field=ArrayField(BigIntegerField()))
        super().__init__(F("search_key"), array)


def _ordered(qs: QuerySet[ListEntry], state: ViewState) -> QuerySet[ListEntry]:
    """``qs`` in the view's order (the frozen position breaks ties), annotated only with what
    that order needs."""
    if state.sort == "release":
        qs = qs.annotate(origin_date=F("origin_release__release_date"))
    elif state.sort == "level":
        qs = qs.annotate(level_order=_level_order_expression())
    expression = F(COLUMNS[state.sort].sort)
    ordering = (
        expression.desc(nulls_last=True) if state.descending else expression.asc(nulls_last=True)
    )
    return qs.order_by(ordering, "position")


_RANKED_METRIC = {"bw_rank": "bw", "md_rank": "md"}


def _walked_ids(qs: QuerySet[ListEntry], state: ViewState, item: slice) -> list[int]:
    """The ids of ``item`` of ``qs`` in the view's order, read as ordered index walks that
    stop at the slice's end (a sorted page of a whole list read 50 rows, not 100,000).

    An index on ``(list, column, position)`` (``models.SORTED_COLUMNS``) gives the column
    ascending with nulls last, or read backward descending with nulls first; so the ORDER
    BY names no null placement (PostgreSQL's default is exactly that; an Incremental Sort
    puts ties back in position order when descending), and a column that can be null is
    read in two parts: its valued rows, then the rows without a value in list order. The
    computed keys are read one key value at a time in the key's order, each in list order:
    the release date (the releases of each date; a join sorted every entry) and the
    reproducibility level (each level; a CASE sorted every entry). The order is the view's
    (``_ordered``: nulls last, ties by position)."""
    name = COLUMNS[state.sort].sort
    if name == "origin_date":
        by_date: dict[Any, list[int]] = {}
        for pk, day in Release.objects.order_by("release_date", "pk").values_list(
            "pk", "release_date"
        ):
            by_date.setdefault(day, []).append(pk)
        days = sorted(by_date, reverse=state.descending)
        parts = [qs.filter(origin_release_id__in=by_date[day]) for day in days]
    elif name == "level_order":  # _level_order_expression: unknown levels (-1) lowest
        levels = [~Q(level__in=LEVEL_ORDER), *[Q(level=level) for level in LEVEL_ORDER]]
        parts = [qs.filter(group) for group in (levels[::-1] if state.descending else levels)]
    else:
        # A metric's competition rank ascending is the metric descending: equal values share
        # a rank and keep list order either way (ranking.metric_ranks). Ranks are in no index
        # (models.SORTED_COLUMNS), so they are read through the metric's.
        descending = state.descending
        if name in _RANKED_METRIC:
            name, descending = _RANKED_METRIC[name], not descending
        key = F(name)
        order = key.desc() if descending else key.asc()
        if not ListEntry._meta.get_field(name).null:
            return list(qs.order_by(order, "position").values_list("pk", flat=True)[item])
        valued = qs.filter(**{f"{name}__isnull": False}).order_by(order, "position")
        return _concatenated([valued, qs.filter(**{f"{name}__isnull": True})], item)
    return _concatenated(parts, item)


def _concatenated(parts: list[QuerySet[ListEntry]], item: slice) -> list[int]:
    """The ids of ``item`` of the rows of ``parts`` one after the other (each in its own
    order, list order by default). A part is counted only when the slice starts past its
    end, so a first page reads the rows it shows."""
    skip = item.start or 0
    ids: list[int] = []
    wanted = None if item.stop is None else item.stop - skip
    for part in parts:
        if wanted is not None and len(ids) >= wanted:
            break
        if not part.query.order_by:
            part = part.order_by("position")
        stop = None if wanted is None else skip + wanted - len(ids)
        read = list(part.values_list("pk", flat=True)[skip:stop])
        if skip and not read:
            skip -= min(skip, part.count())
            continue
        ids += read
        skip = 0
    return ids


def entry_queryset(
    entries: QuerySet[ListEntry],
    state: ViewState,
    records: bool = False,
    list_id: int | None = None,
) -> QuerySet[ListEntry]:
    """Filtered, display-ready and in the view's order (the frozen position breaks ties);
    ``records`` for downloads and the API (see ``annotated_entries``); ``list_id`` is the
    list the entries are of (``filtered_entries``)."""
    return _ordered(annotated_entries(filtered_entries(entries, state, list_id), records), state)


# As long as an anonymous page is cached (page_cache.PAGE_SECONDS); the count is keyed on
# ``page_cache.list_identity``, which every change of the list's rows moves.
WHOLE_LIST_COUNT_SECONDS = 60


SCAN_PAGE_COST = 1.1  # the planner's random_page_cost for a list's filtered scan (ListRows)


class PagedRows:
    """What a paginator (and the API's records) needs of a view's rows: ``count()``, its
    length, slices and single rows; a subclass gives ``count`` and ``_slice``."""

    def count(self) -> int:
        raise NotImplementedError

    def _slice(self, item: slice) -> list[ListEntry]:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.count()

    @overload
    def __getitem__(self, item: int) -> ListEntry: ...
    @overload
    def __getitem__(self, item: slice) -> list[ListEntry]: ...
    def __getitem__(self, item: int | slice) -> ListEntry | list[ListEntry]:
        if isinstance(item, int):
            return self._slice(slice(item, item + 1))[0]
        return self._slice(item)

    def __iter__(self) -> Iterator[ListEntry]:
        return iter(self._slice(slice(None)))


class ListRows(PagedRows):
    """The rows of a list view as a paginator wants them (``count()`` and slices), for the
    page and the API alike.

    Every query stays on the entry table, and a slice first picks the page's ids by a narrow
    scan, then reads the display columns of those rows only (slicing the display query
    itself sorted every entry's full row and ran the per-row IO500-id subquery for every
    skipped row). ``window`` is the slice the caller will ask for after ``count()`` (by
    default the state's page): a filtered or searched view must test every entry of the
    list, so its count and that page's ids come from one such scan (``_scan``) instead of
    two. An unfiltered count is a walk of the list's id index and an unfiltered page, in
    any order, ordered index walks that stop at its end (``_walked_ids``), both cheaper
    apart than one query doing both; with ``version`` (``page_cache.list_identity``: the
    list's and the public-results versions) that count is remembered for as long as an
    anonymous page is, so a re-sorted page of the whole list reads its own rows only.
    ``list_id``: see ``filtered_entries``."""

    # The count beside each of a filtered page's ids (see ``_scan``).
    MATCHING_COUNT = "(SELECT count(*) FROM matching)"

    def __init__(
        self,
        entries: QuerySet[ListEntry],
        state: ViewState,
        records: bool = False,
        window: slice | None = None,
        version: list[Any] | None = None,
        list_id: int | None = None,
    ):
        self.matching = filtered_entries(entries, state, list_id)
        self.state = state
        self.records = records
        if window is None:
            first = (state.page - 1) * state.per_page
            window = slice(first, first + state.per_page)
        self.window = window
        self.version = version
        self._total: int | None = None
        self._window_ids: list[int] | None = None

    def count(self) -> int:
        if self._total is None and self.state.filtered:
            self._window_ids = self._scan(self.window)
        if self._total is None and not self.state.filtered and self.version is not None:
            self._total = self._whole_list_count(self.version)
        if self._total is None:  # the window lies past the last row, or not remembered
            self._total = int(self.matching.count())
        return self._total

    def _whole_list_count(self, version: list[Any]) -> int:
        text = "|".join(map(str, version))
        key = "list-count:" + hashlib.sha256(text.encode()).hexdigest()
        total = cache.get(key)
        if total is None:
            total = int(self.matching.count())
            cache.set(key, total, WHOLE_LIST_COUNT_SECONDS)
        return int(total)

    def _slice(self, item: slice) -> list[ListEntry]:
        ids = self._from_window(item)
        if ids is None and self.state.filtered:
            ids = self._scan(item)
        elif ids is None:
            ids = self._ordered_ids(item)
        return _rows_of(ids, self.matching.db, self.records)

    def _ordered_ids(self, item: slice) -> list[int]:
        """The ids of ``item`` of an unfiltered view."""
        return _walked_ids(self.matching, self.state, item)

    def _from_window(self, item: slice) -> list[int] | None:
        """The ids of ``item`` if the window's scan already read them (a paginator asks
        for a last page that ends at the count, shorter than the window)."""
        ids, window = self._window_ids, self.window
        if ids is None or self._total is None or (item.start or 0) != (window.start or 0):
            return None
        start = item.start or 0
        read_to = start + len(ids)  # the window's end, or the last matching row
        if item.stop is None:
            return ids if read_to == self._total else None
        return ids[: item.stop - start] if item.stop <= read_to or read_to == self._total else None

    def _scan(self, item: slice) -> list[int]:
        """The ids of ``item`` in the view's order and, when it is not past the end, the
        number of matching entries, from one pass over them.

        The matching rows are a MATERIALIZED CTE so PostgreSQL plans their scan for every
        row: with ``count(*) OVER ()`` on the ordered, limited query itself it costed the
        scan as if the LIMIT stopped it early and walked the wide list-order index (twice
        as slow as reading the rows). Only (id, sort key, position) are carried into the
        top-N sort. The count is a scalar subquery over the CTE, not a window over it: the
        window aggregate passed every matching row on to the sort."""
        start = item.start or 0
        if item.stop is not None and item.stop <= start:
            return []
        keyed = _ordered(self.matching, self.state).annotate(
            sort_key=F(COLUMNS[self.state.sort].sort)
        )
        query = keyed.order_by().values_list("pk", "sort_key", "position").query
        try:
            inner, params = query.sql_with_params()
        except EmptyResultSet:  # a filter no entry can meet (a year without releases)
            self._total = 0
            return []
        direction = "DESC" if self.state.descending else "ASC"
        limit = "" if item.stop is None else f" LIMIT {int(item.stop - start)}"
        sql = (
            f"WITH matching (id, sort_key, position) AS MATERIALIZED ({inner}) "
            f"SELECT id, {self.MATCHING_COUNT} FROM matching "
            f"ORDER BY sort_key {direction} NULLS LAST, position ASC{limit} OFFSET {int(start)}"
        )
        # The list's indexes and rows are read by every page, so they are in memory: at the
        # default random_page_cost the planner read all rows of a large list in heap
        # order rather than one FS type's through their index, and chose parallel workers
        # for a whole-list scan, which lose on a few cores busy with other requests.
        with (
            transaction.atomic(using=self.matching.db),
            connections[self.matching.db].cursor() as cursor,
        ):
            cursor.execute(
                "SELECT current_setting('random_page_cost'), "
                "current_setting('max_parallel_workers_per_gather')"
            )
            cost, workers = cursor.fetchone()
            cursor.execute(f"SET LOCAL random_page_cost = {SCAN_PAGE_COST}")
            cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
            cursor.execute(sql, params)
            rows = cursor.fetchall()
            cursor.execute(
                "SELECT set_config('random_page_cost', %s, true), "
                "set_config('max_parallel_workers_per_gather', %s, true)",
                [cost, workers],
            )
        if rows:
            self._total = int(rows[0][1])
        elif start == 0:
            self._total = 0
        return [row[0] for row in rows]


def _rows_of(ids: list[int], db: str, records: bool) -> list[ListEntry]:
    """The display rows of ``ids``, in that order."""
    shown = annotated_entries(ListEntry.objects.using(db).filter(pk__in=ids).order_by(), records)
    by_id = {entry.pk: entry for entry in shown}
    return [by_id[pk] for pk in ids]


class WhatIfRows(PagedRows):
    """``rows`` (a ``ListRows``) under a what-if view: every row read carries its
    ``whatif`` placing (``whatif.Placing``). Sorted by the what-if rank (``WHATIF_SORT``),
    the order is the reranking's, kept to the rows the view's filters match; any other
    sort is ``rows``' own."""

    def __init__(self, rows: ListRows, reranking: Reranking):
        self.rows = rows
        self.reranking = reranking
        self._ids: list[int] | None = None

    def _ordered_ids(self) -> list[int]:
        if self._ids is None:
            order = self.reranking.order
            ranked = [p.entry_id for p in order if p.rank is not None]
            if self.rows.state.descending:
                ranked.reverse()
            ids = ranked + [p.entry_id for p in order if p.rank is None]
            if self.rows.state.filtered:
                matching = set(self.rows.matching.values_list("pk", flat=True))
                ids = [pk for pk in ids if pk in matching]
            self._ids = ids
        return self._ids

    def count(self) -> int:
        if self.rows.state.sort != WHATIF_SORT:
            return self.rows.count()
        return len(self._ordered_ids())

    def _slice(self, item: slice) -> list[ListEntry]:
        if self.rows.state.sort == WHATIF_SORT:
            entries = _rows_of(self._ordered_ids()[item], self.rows.matching.db, self.rows.records)
        else:
            entries = self.rows[item]
        for entry in entries:
            entry.whatif = self.reranking.by_id.get(entry.pk)  # type: ignore[attr-defined]
        return entries


def shown_rows(
    entries: QuerySet[ListEntry],
    state: ViewState,
    *,
    list_id: int,
    version: list[Any] | None,
    records: bool = False,
    window: slice | None = None,
) -> PagedRows:
    """The rows of a view of one list's ``entries`` (see ``ListRows``), under the view's
    what-if scoring when it has one (``WhatIfRows``): the page, the downloads and the API."""
    rows = ListRows(
        entries, state, records=records, window=window, version=version, list_id=list_id
    )
    if not state.scoring.active:
        return rows
    return WhatIfRows(rows, reranked(entries, state.scoring, version))


def facet_values(entries: QuerySet[ListEntry], list_id: int | None = None) -> dict[str, Any]:
    """Choices for the filter controls: what occurs in this list. Given the list whose
    entries these all are, from its stored distinct combinations (``list_index``: a few
    thousand rows); else from one DISTINCT scan of the entries."""
    if list_id is not None:
        rows = ListFacet.objects.filter(ranked_list_id=list_id)
    else:
        rows = entries.order_by()  # type: ignore[assignment]
    combos = set(rows.values_list("fs_type", "storage_vendor", "origin_release_id").distinct())
    release_ids = {release for _, _, release in combos}
    years = Release.objects.filter(pk__in=release_ids).values_list("release_date", flat=True)
    return {
        "fs_types": _one_per_value(fs for fs, _, _ in combos),
        "vendors": _one_per_value(vendor for _, vendor, _ in combos),
        "years": sorted({day.year for day in years}, reverse=True),
    }


def _one_per_value(values: Iterable[str]) -> list[str]:
    """Sorted, one choice per value regardless of case: stored values are canonical
    (submissions.canonical_names), this keeps a spelling the table does not know yet from
    showing twice; the filter matches case-insensitively, so either spelling finds both."""
    chosen: dict[str, str] = {}
    for value in sorted(v for v in values if v):
        chosen.setdefault(value.casefold(), value)
    return sorted(chosen.values(), key=str.casefold)
