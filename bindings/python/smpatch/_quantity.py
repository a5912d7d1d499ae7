"""resource.Quantity as the API server parses, compares and writes it
(smp_quantity_* of smpatch.h)."""
import ctypes
import functools

from . import _errors as E
from . import _native as n
from . import _values as V
from ._api import _Inputs

FORMATS = ("DecimalSI", "BinarySI", "DecimalExponent")  # smp_quantity_format, in order


@functools.total_ordering
class Quantity(V.Handle):
    """A quantity: Quantity("1.5Gi"), exact whatever its size. str() is the
    text the API server stores ("0.5" -> "500m", "1024Mi" -> "1Gi");
    quantities compare by value (Quantity("1Gi") == Quantity("1024Mi")).
    Raises InvalidObjectError with resource.ParseQuantity's message."""

    _what = "quantity"

    def __init__(self, text):
        data = V._bytes(text)
        out = ctypes.c_void_p()
        e = n.Error()
        E.check(n.smp_quantity_parse(ctypes.byref(out), data, len(data), ctypes.byref(e)), e)
        self._ptr = out.value

    @classmethod
    def _wrap(cls, ptr):
        q = cls.__new__(cls)
        q._ptr = ptr
        return q

    @classmethod
    def from_value(cls, value, path=None):
        """As the server decodes a Quantity field: a string (white space
        trimmed), an int or a float, None (zero); `path` names the field in
        errors."""
        out = ctypes.c_void_p()
        e = n.Error()
        with _Inputs() as ins:
            d = V.from_python(value, "<quantity>")
            ins.docs.append(d)
            E.check(n.smp_quantity_from_value(ctypes.byref(out), V.root(d),
                                              path.encode() if path else None,
                                              ctypes.byref(e)), e)
        return cls._wrap(out.value)

    def _free(self, ptr):
        n.smp_quantity_free(ptr)

    def __str__(self):
        return n.smp_quantity_string(self._handle(), None).decode()

    def __repr__(self):
        return "Quantity(%r)" % str(self)

    @property
    def format(self):
        """"DecimalSI", "BinarySI" or "DecimalExponent"."""
        return FORMATS[n.smp_quantity_format_of(self._handle())]

    @property
    def sign(self):
        """-1, 0 or 1."""
        return n.smp_quantity_sign(self._handle())

    def _cmp(self, other):
        if not isinstance(other, Quantity):
            other = Quantity(other) if isinstance(other, str) else None
        if other is None:
            return NotImplemented
        return n.smp_quantity_cmp(self._handle(), other._handle())

    def __eq__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c == 0

    def __lt__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c < 0

    def __hash__(self):
        # equal values hash alike: every value is a whole number of nanos
        for scale in (-9, 0, 9, 18):
            try:
                return hash(self.scaled_value(scale))
            except OverflowError:
                continue
        return hash(self.sign)

    def scaled_value(self, scale=0):
        """The value divided by 10**scale, rounded away from zero (scale 0:
        Value(), -3: MilliValue()). Raises OverflowError when it does not
        fit an int64."""
        out = ctypes.c_int64()
        if not n.smp_quantity_scaled_value(ctypes.byref(out), self._handle(), scale):
            raise OverflowError("%s scaled by 10^%d does not fit an int64" % (self, scale))
        return out.value

    def round_up(self, scale):
        """RoundUp(scale): a new Quantity rounded away from zero to a
        multiple of 10**scale (the server rounds ResourceLists to -3)."""
        out = ctypes.c_void_p()
        e = n.Error()
        E.check(n.smp_quantity_round_up(ctypes.byref(out), self._handle(), scale,
                                        ctypes.byref(e)), e)
        return Quantity._wrap(out.value)
