"""A python: target: DataCopy's count form on atlas-a2's 32-byte routes (docs/target-protocol.md)."""
import base64

MEMORY = {"GM": "GM", "VECIN": "UB", "VECCALC": "UB", "VECOUT": "UB", "A1": "L1", "B1": "L1", "C1": "L1", "TSCM": "L1"}
SIZE = {"int8_t": 1, "uint8_t": 1, "int16_t": 2, "uint16_t": 2, "half": 2, "bfloat16_t": 2,
        "int32_t": 4, "uint32_t": 4, "float": 4, "int64_t": 8, "uint64_t": 8, "double": 8}


class MyTarget:
    def hello(self) -> dict:   # what it implements; it checks no call, so it is sent legal calls only
        return {"name": "my-target", "validates": False, "products": ["atlas-a2"], "apis": ["DataCopy"],
                "implements": [{"form": "count"}], "excludes": [{"dst": "C2"}, {"dst": "C2PIPE2GM"}]}

    def execute(self, case: dict) -> dict:   # one burst: count * sizeof(T) bytes, rounded down to 32-B blocks
        regions = case["memory"]
        data = {name: bytearray(base64.b64decode(region["data"])) for name, region in regions.items()}
        src_memory, dst_memory = MEMORY[case["src"]["position"]], MEMORY[case["dst"]["position"]]
        s = case["src"]["address"] - regions[src_memory]["address"]   # offsets into the regions
        d = case["dst"]["address"] - regions[dst_memory]["address"]
        n = case["params"]["count"] * SIZE[case["src"]["dtype"]] // 32 * 32
        data[dst_memory][d:d + n] = data[src_memory][s:s + n]
        return {"status": "ok", "memory": {name: {**regions[name], "data": base64.b64encode(image).decode()}
                                           for name, image in data.items()}}
