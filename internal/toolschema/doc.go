// Package toolschema is the core of package schema, and what only
// mcpbridge's own packages use of it: the lowering and linting that
// package schema shows users ([Lower], [Lint], [LintOutput],
// [Declaration]), and besides them the validation of arguments and
// results against a tool's own schema ([Compile], [Validator.Prepare]:
// every handler of mcpbridge checks with it, in the same words), the
// repairs a model's arguments need first ([DecodeStringified],
// [DropNullOptionals]), and vendor-safe, reversible tool names ([Namer],
// [CheckName]).
//
// A schema comes from an untrusted server, and every function here finishes
// in time and memory bounded by the size of its input, whatever the schema
// holds: a schema no validation could finish on is refused by [Lower] and
// [Compile] ([UnboundedError]), and a validation that would take more work
// than its value's size warrants fails with [ErrTooComplex] before it
// starts. Its bounds are constants: they protect the host from a server,
// so nothing lifts them.
package toolschema
