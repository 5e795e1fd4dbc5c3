package agent

// The names the tests compare against: the agent's own tools, and those
// of tool.Set.Brought that it offers.
const (
	FindToolsName     = findToolsName
	LoadToolsName     = loadToolsName
	ReadResourceName  = "read_resource"
	LoadSkillName     = "load_skill"
	ReadSkillFileName = "read_skill_file"
)

// EstimateTokens is how the agent sizes definitions against
// Config.ToolTokenBudget, for tests that measure what a run sent.
var EstimateTokens = estimateTokens
