"""A converted file written back in the encoding it was read in: portkit reads UTF-16 text with a BOM as UTF-8
(portkit/walk.py), so its edits are made on UTF-8, and the output is UTF-16 again, with the same BOM."""
from __future__ import annotations

import dataclasses

from portkit.convert.sources import FileConversion
from portkit.walk import UTF16_BOMS

_BOMS = {encoding: bom for bom, encoding in UTF16_BOMS.items()}


def _encoded(data: bytes, encoding: str) -> bytes:
    return _BOMS[encoding] + data.decode("utf-8", "surrogatepass").encode(encoding, "surrogatepass")


def in_file_encoding(conversion: FileConversion, encoding: str) -> FileConversion:
    """The conversion as bytes in `encoding` (one portkit reads as UTF-8); other encodings' bytes are as read."""
    if encoding not in _BOMS:
        return conversion
    return dataclasses.replace(conversion, original=_encoded(conversion.original, encoding),
                               converted=_encoded(conversion.converted, encoding))
