"""A memory result whose steps and citations are written when first read.

Writing the twenty-odd steps of an answer costs more than computing its figures; a caller that
wants only the figures (the parallelism solver, a sweep over many inputs) never pays for them.
Reading `steps` or `citations`, dumping, comparing, copying or pickling the result writes them
first, so every view of the result is the same as if they had been written at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

LAZY = ("steps", "citations")  # written by the pending writer, in this order, first
_KEY = "_trace"


def pending(cls: type[M], data: dict[str, Any], write: Callable[..., dict[str, Any]],
            args: tuple[Any, ...]) -> M:
    """A `cls` from computed `data` (every field but LAZY, not revalidated), whose LAZY fields
    `write(*args)` returns on first use."""
    obj = _new(cls)
    _set_dict(obj, data)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = set(cls.model_fields)
    _set_fields(obj, names.copy())  # data and LAZY name every field
    _set_extra(obj, None)
    _set_private(obj, {_KEY: (write, args)})
    return obj


_new = object.__new__  # BaseModel has no __new__ of its own
# BaseModel's slots, set directly: object.__setattr__ looks each one up by name first.
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_FIELDS: dict[type, set[str]] = {}


class LazyTrace:
    """Mixin (before the pydantic base) that writes the LAZY fields on first use."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name in LAZY and self._write_trace():
            return self.__dict__[name]
        return super().__getattr__(name)  # type: ignore[misc]

    def __eq__(self, other: object) -> Any:
        self._write_trace()
        if isinstance(other, LazyTrace):
            other._write_trace()
        return super().__eq__(other)

    def _write_trace(self) -> bool:
        """Write the LAZY fields if still pending (ahead of the others, as declared); True
        when they are in place."""
        private = object.__getattribute__(self, "__pydantic_private__")
        found = private.get(_KEY) if private else None
        if found is None:
            return LAZY[0] in self.__dict__
        object.__setattr__(self, "__pydantic_private__", None)
        write, args = found
        written = write(*args)
        fields = self.__dict__
        object.__setattr__(self, "__dict__", {**{k: fields.get(k, written[k]) for k in LAZY},
                                              **fields})
        return True


def _writing_first(name: str) -> Callable[..., Any]:
    def method(self: LazyTrace, *args: Any, **kwargs: Any) -> Any:
        self._write_trace()
        return getattr(super(LazyTrace, self), name)(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"BaseModel.{name}, with the steps and citations written first."
    return method


# Every BaseModel method that reads the fields' dict directly rather than by attribute.
for _name in ("model_dump", "model_dump_json", "__iter__", "__repr_args__",
              "model_copy", "__copy__", "__deepcopy__", "__getstate__", "__replace__",
              "__rich_repr__", "__pretty__"):
    setattr(LazyTrace, _name, _writing_first(_name))
