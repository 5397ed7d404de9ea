# The safetensors file format written and read by hand (no `safetensors` package here): an 8-byte
# little-endian header length, a JSON header {name: {dtype, shape, data_offsets: [begin, end]}}
# with offsets relative to the end of the header, then the raw little-endian tensor bytes.
import json
import struct

import numpy as np
import torch

_DTYPES = {"F16": np.float16, "F32": np.float32, "I32": np.int32, "I64": np.int64}
_NAMES = {np.dtype(v): k for k, v in _DTYPES.items()}


def save(tensors, path, metadata=None):
    """tensors: {name: torch.Tensor or np.ndarray}; written in sorted name order, as HF does."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name]
        a = t.detach().cpu().contiguous().numpy() if isinstance(t, torch.Tensor) else np.ascontiguousarray(t)
        a = a.astype(a.dtype.newbyteorder("<"), copy=False)
        if a.dtype not in _NAMES:
            raise ValueError(f"{name}: unsupported dtype {a.dtype}")
        data = a.tobytes()
        header[name] = {"dtype": _NAMES[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * (-len(head) % 8)  # pad so the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(head)))
        f.write(head)
        for b in blobs:
            f.write(b)


def load(path):
    """{name: float32 torch.Tensor} (F16 widened), checking offsets against the file size."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        dtype = np.dtype(_DTYPES[info["dtype"]]).newbyteorder("<")
        count = int(np.prod(info["shape"])) if info["shape"] else 1
        if not (0 <= begin <= end <= len(data)) or end - begin != count * dtype.itemsize:
            raise ValueError(f"{name}: bad data_offsets {info['data_offsets']}")
        a = np.frombuffer(data[begin:end], dtype=dtype).reshape(info["shape"])
        out[name] = torch.from_numpy(a.astype(np.float32) if a.dtype.kind == "f" else a.copy())
    return out
