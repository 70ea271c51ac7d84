"""The strategies' per-API modules: one per API of the spec, named after its spec file (spec/<name>.yaml ->
strategies/apis/<name>.py). Each satisfies `ascendc_conformance.strategies.api_contract.ApiStrategies`, which says
what it must provide; `api_contract.module_for(api)` finds and checks it."""
