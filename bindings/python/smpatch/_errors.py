"""smpatch.Error and its subclasses, one per error code of the C library."""
import ctypes

from . import _native as n

OK = 0
EINVAL = -1
EPARSE = -2
EPATCH = -3
ESCHEMA = -4
ECONFLICT = -5
EPRECOND = -6
ENOMEM = -7
ELIMIT = -8
EIO = -9
EINVALOBJ = -10
EINTERNAL = -11


class Error(Exception):
    """A failure reported by libsmpatch.

    code     the C library's SMP_E... code (a negative int: smpatch.EPARSE, ...)
    message  one line, the library's text
    file     the input's name, "" when unknown
    line     1-based, 0 when unknown
    column   1-based, 0 when unknown
    path     the document path at fault ("spec.containers[name=web].ports"), or ""

    str(error) is the library's one-line form, "file:line:col: message"
    (parts that are unknown left out, the path appended when the message
    does not name it), as the smpatch program prints it.
    """

    def __init__(self, code, message, file="", line=0, column=0, path="", text=None):
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self._text = text if text is not None else message
        super().__init__(self._text)

    def __str__(self):
        return self._text

    def __repr__(self):
        return "%s(code=%d, message=%r, file=%r, line=%d, column=%d, path=%r)" % (
            type(self).__name__, self.code, self.message, self.file, self.line,
            self.column, self.path)

    @property
    def description(self):
        """What the code means in general ("invalid patch", ...)."""
        return n.smp_strerror(self.code).decode()


class InvalidArgumentError(Error, ValueError):
    """EINVAL: a bad argument or option."""


class ParseError(Error, ValueError):
    """EPARSE: the input is not valid YAML or JSON."""


class PatchError(Error, ValueError):
    """EPATCH: an invalid patch (bad directive, missing merge key, ...)."""


class SchemaError(Error, LookupError):
    """ESCHEMA: unknown kind or field, or a malformed schema document."""


class ConflictError(Error):
    """ECONFLICT: the three-way patch conflicts with the live object."""


class PreconditionError(Error):
    """EPRECOND: the patch would change apiVersion, kind or metadata.name."""


class LimitError(Error):
    """ELIMIT: a documented size, depth or expansion limit was hit."""


class InputOutputError(Error, OSError):
    """EIO: reading a file failed."""


class InvalidObjectError(Error, ValueError):
    """EINVALOBJ: the object fails validation (labels, annotations size)."""


_BY_CODE = {
    EINVAL: InvalidArgumentError,
    EPARSE: ParseError,
    EPATCH: PatchError,
    ESCHEMA: SchemaError,
    ECONFLICT: ConflictError,
    EPRECOND: PreconditionError,
    ELIMIT: LimitError,
    EIO: InputOutputError,
    EINVALOBJ: InvalidObjectError,
}


def _s(b):
    return b.decode("utf-8", "replace")


def from_struct(e):
    """The Error for a filled struct smp_error."""
    need = n.smp_error_format(None, 0, ctypes.byref(e))
    buf = ctypes.create_string_buffer(need + 1)
    n.smp_error_format(buf, need + 1, ctypes.byref(e))
    cls = _BY_CODE.get(e.code, Error)
    return cls(e.code, _s(e.message),
               _s(e.file), e.line, e.column, _s(e.path), text=_s(buf.value))


def to_struct(err):
    """A struct smp_error holding the Error `err` (texts cut to the
    struct's sizes)."""
    return n.Error(err.code, err.message.encode("utf-8", "replace")[:1023],
                   err.file.encode("utf-8", "replace")[:511], err.line, err.column,
                   err.path.encode("utf-8", "replace")[:511])


def check(rc, e):
    """Raises the error of a call that returned `rc` (non-zero)."""
    if rc != 0:
        if e.code == 0:
            e.code = rc
        raise from_struct(e)


def make(code, message, path=""):
    """An Error raised by the binding itself, shaped like the library's."""
    cls = _BY_CODE.get(code, Error)
    text = message if not path or path in message else "%s (at %s)" % (message, path)
    return cls(code, message, "", 0, 0, path, text=text)
