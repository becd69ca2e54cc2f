"""Selectors whose values live in the URL, so a view can be shared and a link can choose.

A page names its URL-bound widgets once (`UrlState({"a": "compare_a", ...})`: query parameter
-> widget key). The widget's own session key is the only state: the URL and the widget are
kept equal (the widget writes the URL as it changes, `on_change`, and the page writes it once
the selection is settled, `publish`), so a URL value that differs from its widget's value is
new to the page (a followed link, a shared URL) and chooses the widget's value (`restore`).
One page also offers a linked value its filters hide (the run explorer's result): `held_link`
says which, and `hold` remembers the value a link brought (`<widget key>_linked`) for as long
as the widget keeps it.

Values are strings (result ids, testbeds, modes), or lists of strings for a multiselect
(`many`). `query` and `state` default to `st.query_params` and `st.session_state`; tests pass
plain objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from typing import Any, Protocol

import streamlit as st

from app.lib import filters, selection

Value = str | list[str] | None


class Query(Protocol):
    """What is used of `st.query_params`."""

    def get_all(self, key: str) -> list[str]: ...
    def __iter__(self) -> Iterator[str]: ...
    def __setitem__(self, key: str, value: str | Iterable[str]) -> None: ...
    def pop(self, key: str, default: Any = None) -> Any: ...


class UrlState:
    def __init__(
        self,
        keys: Mapping[str, str],
        *,
        many: Iterable[str] = (),
        query: Query | None = None,
        state: MutableMapping[str, Any] | None = None,
    ) -> None:
        self.keys = dict(keys)  # query parameter -> widget key
        self.many = frozenset(many)  # parameters with several values (a multiselect)
        self._query = query if query is not None else st.query_params
        self._state = state if state is not None else st.session_state
        self._restored: set[str] = set()

    # --- reading ---------------------------------------------------------------------------

    def in_url(self, param: str) -> Value:
        """The URL's value of `param`: the last one (a list for `many`); None when absent."""
        values = self._query.get_all(param)
        if param in self.many:
            return values
        return values[-1] if values and values[-1] else None

    def widget(self, param: str) -> Value:
        return self._state.get(self.keys[param])

    def is_new(self, param: str) -> bool:
        """The URL names a value its widget does not hold: a followed link or a shared URL."""
        value = self.in_url(param)
        return bool(value) and value != self.widget(param)

    def held_link(self, param: str, offered: Sequence[str]) -> str | None:
        """The URL's value when the selector must offer it although `offered` lacks it: a
        link just followed, or the value a followed link brought (`hold`) while the URL still
        names it. None otherwise: a URL the page wrote itself is no link, so a filter that
        hides its value moves the selector on (selection.held_link)."""
        held = self._state.get(self._linked_key(param))
        return selection.held_link(self.in_url(param), self.is_new(param), held, list(offered))

    def hold(self, param: str, value: str) -> None:
        """Remember `value` as brought by a link, so it stays offered (`held_link`)."""
        self._state[self._linked_key(param)] = value

    def _linked_key(self, param: str) -> str:
        return self.keys[param] + "_linked"

    # --- URL -> widget ---------------------------------------------------------------------

    def restore(self, param: str, options: Sequence[str]) -> Value:
        """Before the widget is drawn: a new URL value among `options` becomes the widget's
        value (for `many`, the URL's values among them). Returns a new value that is not among
        the options, for the page to name (None otherwise)."""
        self._restored.add(param)
        if not self.is_new(param):
            return None
        value = self.in_url(param)
        key = self.keys[param]
        if param in self.many:
            self._state[key] = [v for v in value or () if v in options]
            return None
        if value in options:
            self._state[key] = value
            return None
        return value

    def select(
        self,
        param: str,
        label: str,
        options: Sequence[str],
        *,
        index: int = 0,
        widget: Callable[..., Any] | None = None,
        **kwargs: Any,
    ) -> Any:
        """A selector (`widget`: st.selectbox, a column's, st.radio or st.multiselect) that
        the URL can set and that writes the URL as it changes. `index` is its value on a first
        view or once its value is no longer offered; None when there are no options (a
        multiselect keeps its own default, empty)."""
        if param not in self._restored:
            self.restore(param, options)
        key = self.keys[param]
        if param not in self.many:
            if not options:
                return None
            if self._state.get(key) not in options:
                self._state[key] = options[min(index, len(options) - 1)]
        draw = widget or (st.multiselect if param in self.many else st.selectbox)
        return draw(label, options, key=key, on_change=self.follow, args=(param,), **kwargs)

    def toggle(
        self, param: str, label: str, *, widget: Callable[..., Any] | None = None, **kwargs: Any
    ) -> bool:
        """A switch (`widget`, default st.toggle) the URL can set: `?<param>=1` while it is
        on, no parameter while it is off (the default view's URL stays clean). A link that
        says `1` turns it on; otherwise the switch keeps its own state."""
        key = self.keys[param]
        if param not in self._restored:
            self._restored.add(param)
            if self.in_url(param) == "1" or key not in self._state:
                self._state[key] = self.in_url(param) == "1"
        draw = widget or st.toggle
        on = bool(draw(label, key=key, on_change=self._follow_toggle, args=(param,), **kwargs))
        self.publish({param: "1" if on else None}, only=(param,))
        return on

    def text(
        self, param: str, label: str, *, widget: Callable[..., Any] | None = None, **kwargs: Any
    ) -> str:
        """A text box (`widget`, default st.text_input) the URL can set: `?<param>=<text>`
        while it holds text (the page publishes it), no parameter while it is empty. A link's
        text becomes the box's; otherwise the box keeps its own."""
        key = self.keys[param]
        if param not in self._restored:
            self._restored.add(param)
            if self.is_new(param):
                self._state[key] = self.in_url(param)
        draw = widget or st.text_input
        return draw(label, key=key, on_change=self.follow, args=(param,), **kwargs) or ""

    def _follow_toggle(self, param: str) -> None:
        self.publish({param: "1" if self.widget(param) else None}, only=(param,))

    # --- widget -> URL ---------------------------------------------------------------------

    def follow(self, param: str) -> None:
        """The widget's `on_change`: the URL takes its new value before the page runs again,
        so the next run does not take the old URL value for a new link."""
        self.publish({param: self.widget(param)}, only=(param,))

    def publish(self, values: Mapping[str, Value], only: Iterable[str] | None = None) -> None:
        """The URL holds the selection: each parameter (of `only`, default all the page's)
        set to its value in `values`, removed when it has none."""
        for param in self.keys if only is None else only:
            value = values.get(param)
            if value is None:
                self._query.pop(param, None)
            elif param in self.many:
                if list(value) != self._query.get_all(param):
                    self._query[param] = list(value)
            elif self._query.get_all(param)[-1:] != [value]:
                self._query[param] = value


# --- The sidebar filters ------------------------------------------------------------------


class FilterUrl:
    """The sidebar filters in the URL (`?f_profile=baseline&f_profile=density&f_keep=1`):
    filters.url_param names each filter's parameter, one repeated value per chosen value.

    The rules are UrlState's: a widget's session key is the state, the widget writes the URL as
    it changes (`follow`) and every run writes the URL from the widgets (`publish`), so a URL
    value that differs from its widget's is a link (`restore`). A URL without a filter's
    parameter leaves the widget as it is: moving to another page (st.navigation) drops the
    query, and the next run writes the filters back. Values are parsed to the filter's type
    (read % float, block size and outstanding I/O int); a value that is malformed or not among
    the sidebar's options, and an unknown `f_` parameter, is left out and reported by
    `restore` (parameter and why), never raised.
    """

    KEEP = "keep_unlabelled"  # the toggle's name beside the filters'

    def __init__(
        self,
        query: Query | None = None,
        state: MutableMapping[str, Any] | None = None,
    ) -> None:
        self._query = query if query is not None else st.query_params
        self._state = state if state is not None else st.session_state

    @staticmethod
    def widget_key(name: str) -> str:
        """The session key of a filter's sidebar widget (KEEP: the keep-unlabelled toggle)."""
        return f"filter_{name}"

    def restore(self, options: Mapping[str, Sequence[Any]]) -> list[str]:
        """Before the sidebar is drawn: each filter the URL names takes the URL's values (those
        among `options`, in the URL's order) when they differ from its widget's. Returns what
        was left out, one line per parameter: "`f_read_pct`: `abc` is not a percentage ..."."""
        problems = [
            f"`{param}`: no such filter"
            for param in self._query
            if param.startswith(filters.URL_PREFIX)
            and param != filters.KEEP_PARAM
            and param.removeprefix(filters.URL_PREFIX) not in filters.SPEC_BY_NAME
        ]
        for spec in filters.SPECS:
            param = filters.url_param(spec.name)
            texts = self._query.get_all(param)
            if not texts:
                continue
            values: list[Any] = []
            offered = list(options.get(spec.name, ()))
            for text in texts:
                try:
                    value = filters.url_value(spec.name, text)
                except ValueError as exc:
                    problems.append(f"`{param}`: {exc}")
                    continue
                if value not in offered:
                    problems.append(f"`{param}`: `{text}` is not in the warehouse")
                elif value not in values:
                    values.append(value)
            key = self.widget_key(spec.name)
            if values != list(self._state.get(key) or ()):
                self._state[key] = values
        keep = self._query.get_all(filters.KEEP_PARAM)
        if keep:
            if keep[-1] in (filters.KEEP_ON, "0"):
                self._state[self.widget_key(self.KEEP)] = keep[-1] == filters.KEEP_ON
            else:
                problems.append(f"`{filters.KEEP_PARAM}`: `{keep[-1]}` is not 1 or 0")
        return problems

    def follow(self, name: str) -> None:
        """A filter widget's `on_change`: the URL takes its new value before the next run."""
        self._write(name)

    def publish(self) -> None:
        """The URL holds every filter's widget value (a parameter per filter with a selection,
        `f_keep=1` when rows without a value are kept); a left-out value leaves it."""
        for spec in filters.SPECS:
            self._write(spec.name)
        self._write(self.KEEP)

    def _write(self, name: str) -> None:
        value = self._state.get(self.widget_key(name))
        if name == self.KEEP:
            param, texts = filters.KEEP_PARAM, [filters.KEEP_ON] if value else []
        else:
            param = filters.url_param(name)
            texts = [filters.url_text(name, v) for v in value or ()]
        if not texts:
            if self._query.get_all(param):
                self._query.pop(param, None)
        elif self._query.get_all(param) != texts:
            self._query[param] = texts
