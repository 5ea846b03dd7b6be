package luafast

import (
	"fmt"
	"strings"
)

// Reply texts copied from miniredis v2.40.0 (redis.go, lua.go) so that
// errors are byte-identical.
const (
	msgInvalidInt         = "ERR value is not an integer or out of range"
	msgInvalidKeysNumber  = "ERR Number of keys can't be greater than number of args"
	msgNegativeKeysNumber = "ERR Number of keys can't be negative"
	msgFScriptUsage       = "ERR unknown subcommand or wrong number of arguments for '%s'. Try SCRIPT HELP."
	msgFScriptUsageSimple = "ERR unknown subcommand '%s'. Try SCRIPT HELP."
	msgScriptFlush        = "ERR SCRIPT FLUSH only support SYNC|ASYNC option"
	msgNoScriptFound      = "NOSCRIPT No matching script. Please use EVAL."
	msgSyntaxError        = "ERR syntax error"
	msgReadOnlyScript     = "Write commands are not allowed in read-only scripts"
	msgUnknownCmdPcall    = "ERR Unknown Redis command called from script"
)

func errWrongNumber(cmd string) string {
	return fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(cmd))
}

func errLuaParseError(err error) string {
	return "ERR Error compiling script (new function): " + err.Error()
}

func msgNotFromScripts(sha string) string {
	return "This Redis command is not allowed from script script: " + sha + ", &c"
}

func msgNoArgs(sha string) string {
	return "Please specify at least one argument for this redis lib call script: " + sha + ", &c."
}

func msgBadArgType(sha string) string {
	return "Lua redis lib command arguments must be strings or integers script: " + sha + ", &c."
}

func msgUnknownCmdCall(sha string) string {
	return "Unknown Redis command called from script script: " + sha + ", &c."
}

// sprintf is called through a variable on purpose: miniredis reports script
// errors with fmt.Errorf(msg), i.e. it uses the message as a format string.
// formatQuirk reproduces that (a '%' in a message gets mangled the same way).
var sprintf = fmt.Sprintf

func formatQuirk(msg string) string {
	if strings.IndexByte(msg, '%') < 0 {
		return msg
	}
	return sprintf(msg)
}
