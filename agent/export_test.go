package agent

// The names the tests compare against, as the agent has them.
const (
	FindToolsName     = findToolsName
	LoadToolsName     = loadToolsName
	ReadResourceName  = readResourceName
	LoadSkillName     = loadSkillName
	ReadSkillFileName = readSkillFileName
)

// EstimateTokens is how the agent sizes definitions against
// Config.ToolTokenBudget, for tests that measure what a run sent.
var EstimateTokens = estimateTokens
