"""The reference's per-API modules: one per API of the spec, named after its spec file (spec/<name>.yaml ->
reference/apis/<name>.py). Each satisfies `ascendc_conformance.reference.api_contract.ApiReference`, which says
what it must provide; `api_contract.module_for(api)` finds and checks it."""
