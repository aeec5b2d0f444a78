// Copyright (c) virtinfra.hyperconverged contributors
// GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
// SPDX-License-Identifier: GPL-3.0-or-later

// argocd-health runs Argo CD resource health checks (Lua) in gopher-lua, the Lua VM Argo CD runs them in, set up as
// Argo CD sets it up for a health script (argo-cd v2.14, util/lua/lua.go: VM.runLua and ExecuteHealthLua): no
// standard library but package, base and table (useOpenLibs off), the object as the global obj, the script's return
// value a table whose status must be one of Argo CD's health codes, a one-second deadline.
//
// Input on stdin: {"script": "...", "objects": [{...}, ...]}. Output: one JSON line per object,
// {"status": "...", "message": "..."} or {"error": "..."}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
)

var codes = map[string]bool{"Healthy": true, "Progressing": true, "Degraded": true, "Suspended": true,
	"Missing": true, "Unknown": true}

// decode turns a JSON value into the Lua value Argo CD's decodeValue makes: objects and arrays as tables (arrays
// 1-based), numbers as LNumber.
func decode(l *lua.LState, value interface{}) lua.LValue {
	switch v := value.(type) {
	case map[string]interface{}:
		table := l.CreateTable(0, len(v))
		for key, item := range v {
			table.RawSetString(key, decode(l, item))
		}
		return table
	case []interface{}:
		table := l.CreateTable(len(v), 0)
		for _, item := range v {
			table.Append(decode(l, item))
		}
		return table
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	default:
		return lua.LNil
	}
}

func run(script string, object interface{}) map[string]string {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		l.Push(l.NewFunction(lib.open))
		l.Push(lua.LString(lib.name))
		l.Call(1, 0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", decode(l, object))
	if err := l.DoString(script); err != nil {
		return map[string]string{"error": err.Error()}
	}
	returned, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return map[string]string{"error": "the script did not return a table"}
	}
	status := returned.RawGetString("status").String()
	if !codes[status] {
		return map[string]string{"error": fmt.Sprintf("%q is not a health status Argo CD knows", status)}
	}
	answer := map[string]string{"status": status}
	if message, isString := returned.RawGetString("message").(lua.LString); isString {
		answer["message"] = string(message)
	}
	return answer
}

func main() {
	var input struct {
		Script  string        `json:"script"`
		Objects []interface{} `json:"objects"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&input); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	for _, object := range input.Objects {
		if err := out.Encode(run(input.Script, object)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
