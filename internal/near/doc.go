// Package near finds the name a caller most likely meant by one that names
// nothing ([Suggest]): a tool a model half remembers, a flag, a skill.
// It depends on nothing of mcpbridge, so that every package, package tool
// among them, can answer "did you mean".
package near
