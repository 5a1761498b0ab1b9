"""GitHub Actions expressions (`${{ ... }}`), evaluated as GitHub documents them
(docs.github.com, "Evaluate expressions in workflows and actions"):

- literals: null, true, false, numbers (decimal, hexadecimal, exponent), 'strings' with ''
  for a quote; operators by precedence: ( ), [ ] and . (property, `*` object filter), !,
  < <= > >=, == !=, &&, ||;
- loose equality: operands of different types are compared as numbers (null 0, true 1,
  false 0, a string parsed as a number or NaN, an array or object NaN); strings compare
  case-insensitively; arrays and objects only by identity; NaN equals nothing;
- `&&` and `||` return one of their operands; falsy are false, 0, -0, '', null and NaN;
- a property of null or a missing property is null;
- functions: contains, startsWith, endsWith, format, join, toJSON, fromJSON, and the status
  functions success, always, failure, cancelled (given by the caller, which knows what
  they mean for a job or a step);
- a value put into text: null as '', booleans as true/false, numbers without a needless
  fraction (1, not 1.0), objects and arrays as 'Object' and 'Array'.

Numbers are doubles at GitHub: fromJSON then toJSON writes 1.0 as 1, and so does this."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

STATUS_FUNCTIONS = ("success", "always", "failure", "cancelled")
_TOKEN = re.compile(
    r"""\s*(?:
    (?P<number>0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+)
  | (?P<string>'(?:[^']|'')*')
  | (?P<op>==|!=|<=|>=|&&|\|\||[<>!()\[\].,*])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
)""",
    re.VERBOSE,
)
_EMBEDDED = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


class ExpressionError(Exception):
    """An expression GitHub would refuse."""


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            msg = f"unexpected character at {pos} in {text!r}"
            raise ExpressionError(msg)
        kind = match.lastgroup
        assert kind is not None
        out.append(_Token(kind, match[kind]))
        pos = match.end()
    return out


def _number(value: Any) -> float:  # noqa: ANN401 (any JSON value)
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return 0.0
        try:
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        except ValueError:
            return math.nan
    return math.nan


def truthy(value: Any) -> bool:  # noqa: ANN401 (any JSON value)
    if value is None or value is False or value == "":
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    return True


def _equal(left: Any, right: Any) -> bool:  # noqa: ANN401 (any JSON value)
    if type(left) is type(right) or (_is_num(left) and _is_num(right)):
        if isinstance(left, str):
            return left.casefold() == str(right).casefold()
        if isinstance(left, dict | list):
            return left is right
        if _is_num(left):
            return float(left) == float(right)
        return bool(left == right)
    return _number(left) == _number(right)


def _is_num(value: Any) -> bool:  # noqa: ANN401 (any JSON value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def _order(op: str, left: Any, right: Any) -> bool:  # noqa: ANN401 (any JSON value)
    if isinstance(left, str) and isinstance(right, str):
        a, b = left.casefold(), right.casefold()
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    x, y = _number(left), _number(right)
    return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]


def _doubles(value: Any) -> Any:  # noqa: ANN401 (any JSON value)
    """A JSON value with every integral float written as GitHub writes a double."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _doubles(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_doubles(v) for v in value]
    return value


def to_json(value: Any) -> str:  # noqa: ANN401 (any JSON value)
    """toJSON: pretty-printed with two spaces, as GitHub prints it."""
    return json.dumps(_doubles(value), indent=2, ensure_ascii=False)


def as_text(value: Any) -> str:  # noqa: ANN401 (any JSON value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_num(value):
        number = float(value)
        if number.is_integer() and abs(number) < 2**53:
            return str(int(number))
        return repr(number)
    if isinstance(value, dict):
        return "Object"
    if isinstance(value, list):
        return "Array"
    return str(value)


def _format(template: str, *args: Any) -> str:
    out: list[str] = []
    i = 0
    while i < len(template):
        char = template[i]
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(char)
            i += 2
        elif char == "{":
            end = template.index("}", i)
            out.append(as_text(args[int(template[i + 1 : end])]))
            i = end + 1
        else:
            out.append(char)
            i += 1
    return "".join(out)


def _contains(search: Any, item: Any) -> bool:  # noqa: ANN401 (any JSON value)
    if isinstance(search, list):
        return any(_equal(x, item) for x in search)
    return as_text(item).casefold() in as_text(search).casefold()


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains,
    "startswith": lambda s, v: as_text(s).casefold().startswith(as_text(v).casefold()),
    "endswith": lambda s, v: as_text(s).casefold().endswith(as_text(v).casefold()),
    "format": _format,
    "join": lambda a, sep=",": (
        as_text(sep).join(as_text(x) for x in a) if isinstance(a, list) else as_text(a)
    ),
    "tojson": to_json,
    "fromjson": lambda s: json.loads(as_text(s)),
}


class _Parser:
    def __init__(self, text: str, context: Mapping[str, Any], status: Callable[[str], bool]):
        self.tokens = _tokens(text)
        self.pos = 0
        self.context = context
        self.status = status
        self.text = text

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, text: str | None = None) -> _Token:
        token = self.peek()
        if token is None or (text is not None and token.text != text):
            msg = f"expected {text or 'more'} in {self.text!r}"
            raise ExpressionError(msg)
        self.pos += 1
        return token

    def accept(self, *texts: str) -> str | None:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in texts:
            self.pos += 1
            return token.text
        return None

    def parse(self) -> Any:  # noqa: ANN401 (any JSON value)
        value = self.or_()
        if self.peek() is not None:
            msg = f"unexpected {self.peek()!r} in {self.text!r}"
            raise ExpressionError(msg)
        return value

    def or_(self) -> Any:  # noqa: ANN401 (any JSON value)
        value = self.and_()
        while self.accept("||"):
            right = self.and_()
            value = value if truthy(value) else right
        return value

    def and_(self) -> Any:  # noqa: ANN401 (any JSON value)
        value = self.equality()
        while self.accept("&&"):
            right = self.equality()
            value = right if truthy(value) else value
        return value

    def equality(self) -> Any:  # noqa: ANN401 (any JSON value)
        value = self.comparison()
        while op := self.accept("==", "!="):
            right = self.comparison()
            value = _equal(value, right) == (op == "==")
        return value

    def comparison(self) -> Any:  # noqa: ANN401 (any JSON value)
        value = self.unary()
        while op := self.accept("<", "<=", ">", ">="):
            value = _order(op, value, self.unary())
        return value

    def unary(self) -> Any:  # noqa: ANN401 (any JSON value)
        if self.accept("!"):
            return not truthy(self.unary())
        return self.postfix()

    def postfix(self) -> Any:  # noqa: ANN401 (any JSON value)
        value, filtered = self.primary(), False
        while True:
            if self.accept("."):
                token = self.take()
                if token.text == "*":
                    value, filtered = _star(value, filtered), True
                else:
                    value = _member(value, token.text, filtered)
            elif self.accept("["):
                if self.accept("*"):
                    value, filtered = _star(value, filtered), True
                else:
                    key = self.or_()
                    value = _member(value, key, filtered)
                self.take("]")
            else:
                return value

    def primary(self) -> Any:  # noqa: ANN401 (any JSON value)
        token = self.take()
        if token.kind == "number":
            text = token.text
            return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
        if token.kind == "string":
            return token.text[1:-1].replace("''", "'")
        if token.kind == "op" and token.text == "(":
            value = self.or_()
            self.take(")")
            return value
        if token.kind != "name":
            msg = f"unexpected {token.text!r} in {self.text!r}"
            raise ExpressionError(msg)
        word = token.text
        if word in ("true", "false"):
            return word == "true"
        if word == "null":
            return None
        if self.accept("("):
            args: list[Any] = []
            if not self.accept(")"):
                args.append(self.or_())
                while self.accept(","):
                    args.append(self.or_())
                self.take(")")
            name = word.lower()
            if name in STATUS_FUNCTIONS:
                return self.status(name)
            if name not in FUNCTIONS:
                msg = f"unknown function {word}() in {self.text!r}"
                raise ExpressionError(msg)
            return FUNCTIONS[name](*args)
        if word not in self.context:
            msg = f"unknown context {word!r} in {self.text!r}"
            raise ExpressionError(msg)
        return self.context[word]


def _member(value: Any, key: Any, filtered: bool) -> Any:  # noqa: ANN401 (JSON values)
    if filtered:
        return [_member(v, key, False) for v in value]
    if isinstance(value, dict):
        wanted = as_text(key).casefold()
        return next((v for k, v in value.items() if k.casefold() == wanted), None)
    if isinstance(value, list) and _is_num(key):
        index = int(key)
        return value[index] if 0 <= index < len(value) else None
    return None


def _star(value: Any, filtered: bool) -> list[Any]:  # noqa: ANN401 (JSON values)
    items = value if filtered else [value]
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict):
            out.extend(item.values())
        elif isinstance(item, list):
            out.extend(item)
    return out


def _no_status(name: str) -> bool:
    msg = f"{name}() is not allowed here"
    raise ExpressionError(msg)


def evaluate(
    text: str, context: Mapping[str, Any], status: Callable[[str], bool] = _no_status
) -> Any:  # noqa: ANN401 (any JSON value)
    """The value of one expression (without its `${{ }}`)."""
    return _Parser(text, context, status).parse()


def uses_status_function(text: str) -> bool:
    """Whether an `if:` names a status function: GitHub adds `success() &&` when it does not."""
    names = [t.text.lower() for t in _tokens(_strip(text)) if t.kind == "name"]
    return any(n in STATUS_FUNCTIONS for n in names)


def _strip(text: str) -> str:
    match = re.fullmatch(r"\s*\$\{\{(.*)\}\}\s*", text, re.DOTALL)
    return match[1] if match else text


def condition(
    text: Any,  # noqa: ANN401 (the YAML value of `if:`)
    context: Mapping[str, Any],
    status: Callable[[str], bool],
) -> bool:
    """An `if:`: with or without `${{ }}`; `success() && (...)` unless it names a status
    function; absent is `success()`."""
    if text is None:
        return status("success")
    if isinstance(text, bool):
        return status("success") and text
    body = _strip(str(text))
    if not uses_status_function(body):
        return status("success") and truthy(evaluate(body, context, status))
    return truthy(evaluate(body, context, status))


def interpolate(
    value: Any,  # noqa: ANN401 (a YAML value)
    context: Mapping[str, Any],
    status: Callable[[str], bool] = _no_status,
) -> Any:  # noqa: ANN401 (a YAML value)
    """A YAML value with its `${{ }}` filled in: a string that is one whole expression
    takes the expression's value (a matrix, a number); any other string gets the text of
    each; mappings and lists are filled in item by item."""
    if isinstance(value, dict):
        return {k: interpolate(v, context, status) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, context, status) for v in value]
    if not isinstance(value, str):
        return value
    whole = re.fullmatch(r"\s*\$\{\{(.*?)\}\}\s*", value, re.DOTALL)
    if whole and "${{" not in whole[1]:
        return evaluate(whole[1], context, status)
    return _EMBEDDED.sub(lambda m: as_text(evaluate(m[1], context, status)), value)


def text(
    value: Any,  # noqa: ANN401 (a YAML value)
    context: Mapping[str, Any],
    status: Callable[[str], bool] = _no_status,
) -> str:
    """A YAML value filled in, as the text an input, an env variable or a name gets."""
    if isinstance(value, str):
        return _EMBEDDED.sub(lambda m: as_text(evaluate(m[1], context, status)), value)
    return as_text(value)
