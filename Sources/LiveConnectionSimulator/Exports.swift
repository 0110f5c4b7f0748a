// The world re-exports the kernel, the rules and the traces it is built from, so that
// `import LiveConnectionSimulator` keeps giving a test or a tool the whole simulator.
@_exported public import LiveConnectionRules
@_exported public import LiveConnectionTraces
@_exported public import SimulationKernel
