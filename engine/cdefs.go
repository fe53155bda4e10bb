package engine

import (
	"fmt"
	"io"
	"reflect"
	"strings"
)

// The C definitions of the engine: every format the C path writes for the
// engine, or reads of it, and every number it shares with it, is defined
// in Go (the types and constants named below) and written out as C by
// WriteCDefinitions into capi/engine_defs.h, which is generated (go
// generate ./engine) and committed; cdefs_test.go fails when it is stale.
// The C compiler checks the generated layouts against the ones computed
// here for both pointer sizes (_Static_assert), so the header cannot drift
// from Go by a hand edit either.

//go:generate go run ../tools/cdefs -o ../capi/engine_defs.h

// CDefsPath is the generated header, relative to the repository's root.
const CDefsPath = "capi/engine_defs.h"

// cStruct is a Go struct written out as a C struct; each field's `c` tag
// is its C name, optionally followed by its C type (",type"), else the
// type follows from the field's Go kind.
type cStruct struct {
	name string // the C struct's tag
	doc  string
	typ  reflect.Type
}

// cConst is a number shared with C.
type cConst struct {
	name  string
	value int64
	doc   string
}

// cEnum is a group of constants written as one C enum.
type cEnum struct {
	doc    string
	consts []cConst
}

func cStructs() []cStruct {
	return []cStruct{
		{"engine_record", "A record's header in a transport block (transport.go): the wire path\n * (capi/direct.c) packs puts and messages to other processes in it.", reflect.TypeOf(recordHeader{})},
		{"reqlog_entry", "A request in a core's request log (reqlog.go), then its inline bytes\n * (put: the source; send: the tag, then the payload) padded to 8.", reflect.TypeOf(logEntry{})},
		{"put_entry", "A direct put in its sender's log (direct.go), then its bytes padded to 8.", reflect.TypeOf(directPut{})},
		{"put_write", "A put the engine decided, for the writer (putwrite.go): the bytes at\n * source go to target.", reflect.TypeOf(putWrite{})},
		{"get_entry", "A direct get in its receiver's log (direct.go), then room for its\n * bytes padded to 8.", reflect.TypeOf(directGet{})},
		{"send_entry", "A direct message in its sender's log (direct.go), then the tag and the\n * payload, padded to 8.", reflect.TypeOf(directMessage{})},
		{"ebsp_msg", "A queued message (bsmp.go): the shim's message calls read it in place.", reflect.TypeOf(message{})},
		{"ebsp_msgq", "A core's message queue (bsmp.go, QueueState).", reflect.TypeOf(QueueState{})},
		{"engine_plan_step", "One step of the plan of a sync in which only direct requests were made\n * (superstep.go, directPlan): what the core does, and the step after.", reflect.TypeOf(planStep{})},
	}
}

func cEnums() []cEnum {
	return []cEnum{
		{"Record kinds the wire path packs (drma.go, bsmp.go).", []cConst{
			{"WIRE_KIND_PUT", int64(kindPut), "slot, offset, the bytes"},
			{"WIRE_KIND_MESSAGE", int64(kindMessage), "tag length, 0, the tag then the payload"},
			{"WIRE_HEADER", int64(recHeader), "bytes of struct engine_record"},
		}},
		{"Kinds of struct reqlog_entry (reqlog.go).", []cConst{
			{"REQ_PUT", LogPut, ""}, {"REQ_GET", LogGet, ""}, {"REQ_SEND", LogSend, ""},
		}},
		{"Kinds of direct requests, as goBeginDirect takes them (direct.go).", []cConst{
			{"DIRECT_PUT", int64(DirectPut), ""}, {"DIRECT_GET", int64(DirectGet), ""},
			{"DIRECT_SEND", int64(DirectSend), ""}, {"DIRECT_WIRE", int64(DirectWire), ""},
		}},
		{"The bits of struct ebsp_core's direct_mode, which the engine publishes (direct.go, DirectMode).", []cConst{
			{"DIRECT_MODE_PUT", 1 << DirectPut, ""}, {"DIRECT_MODE_GET", 1 << DirectGet, ""},
			{"DIRECT_MODE_SEND", 1 << DirectSend, ""}, {"DIRECT_MODE_WIRE", 1 << DirectWire, ""},
			{"DIRECT_MODE_COUNTED", int64(DirectModeCounted), "each request counted for EBSP_STATS"},
		}},
		{"The steps of bsp_sync as goSyncStep numbers them (superstep.go).", []cConst{
			{"STEP_FINISH", stepFinish, ""}, {"STEP_PHASE_A", stepPhaseA, "the first step after the first barrier"},
			{"STEP_PHASE_B", stepPhaseB, ""}, {"STEP_PUTS", stepPuts, ""}, {"STEP_DONE", stepDone, ""},
			{"STEP_GETS", stepGets, ""},
			{"STEP_OVER", StepOver, "the sync is complete: the caller advances the superstep counter"},
			{"STEP_FAILED", StepFailed, "a misuse stopped the run"},
			{"STEP_FIRST_LOCAL", firstLocalStep, "this step and those after need a barrier of this process only"},
			{"STEP_COUNT", stepCount, "the steps a plan indexes"},
		}},
		{"What a core does in a step of a plan (superstep.go, syncAction).", []cConst{
			{"ACTION_NONE", int64(actNone), ""}, {"ACTION_READ_GETS", int64(actReadGets), ""},
			{"ACTION_WRITE_GETS", int64(actWriteGets), ""}, {"ACTION_WRITE_PUTS", int64(actWritePuts), ""},
			{"ACTION_END", int64(actEnd), "the engine's end of the superstep; nothing to do when nobody needed the engine"},
		}},
		{"The index of a plan: whether some core made direct gets, direct puts.", []cConst{
			{"PLAN_GETS", planGets, ""}, {"PLAN_PUTS", planPuts, ""},
		}},
	}
}

// WriteCDefinitions writes the generated header.
func WriteCDefinitions(w io.Writer) error {
	var b strings.Builder
	b.WriteString("/* Generated by tools/cdefs from engine/cdefs.go (go generate ./engine): do not edit.\n" +
		" * The formats and numbers the C path shares with the engine, defined once, in Go. */\n" +
		"#ifndef EBSP_ENGINE_DEFS_H\n#define EBSP_ENGINE_DEFS_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n")
	for _, e := range cEnums() {
		fmt.Fprintf(&b, "/* %s */\nenum {\n", e.doc)
		for _, c := range e.consts {
			if c.doc != "" {
				fmt.Fprintf(&b, "    %s = %d, /* %s */\n", c.name, c.value, c.doc)
			} else {
				fmt.Fprintf(&b, "    %s = %d,\n", c.name, c.value)
			}
		}
		b.WriteString("};\n\n")
	}
	for _, s := range cStructs() {
		if err := writeCStruct(&b, s); err != nil {
			return err
		}
	}
	writeDirectPlan(&b)
	b.WriteString("#endif\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cField is a struct field as C sees it, with its size and alignment for
// 8-byte and 4-byte pointers.
type cField struct {
	name, ctype   string
	size, align   [2]int
	offset, index [2]int
}

func cFieldOf(f reflect.StructField) (cField, error) {
	tag := f.Tag.Get("c")
	if tag == "" {
		return cField{}, fmt.Errorf("field %s has no c tag", f.Name)
	}
	name, ctype, _ := strings.Cut(tag, ",")
	both := func(n int) [2]int { return [2]int{n, n} }
	cf := cField{name: name}
	switch f.Type.Kind() {
	case reflect.Uint8:
		cf.ctype, cf.size, cf.align = "uint8_t", both(1), both(1)
	case reflect.Uint32:
		cf.ctype, cf.size, cf.align = "uint32_t", both(4), both(4)
	case reflect.Int32:
		cf.ctype, cf.size, cf.align = "int32_t", both(4), both(4)
	case reflect.Int64:
		cf.ctype, cf.size, cf.align = "int64_t", both(8), [2]int{8, 4} // i386 aligns it to 4 in structs, as Go's 386
	case reflect.Int:
		cf.ctype, cf.size, cf.align = "intptr_t", [2]int{8, 4}, [2]int{8, 4}
	case reflect.Uintptr:
		cf.ctype, cf.size, cf.align = "size_t", [2]int{8, 4}, [2]int{8, 4}
	case reflect.UnsafePointer:
		cf.ctype, cf.size, cf.align = "void *", [2]int{8, 4}, [2]int{8, 4}
	default:
		return cField{}, fmt.Errorf("field %s: no C type for %s", f.Name, f.Type)
	}
	if ctype != "" {
		cf.ctype = ctype
	}
	return cf, nil
}

func writeCStruct(b *strings.Builder, s cStruct) error {
	fields := make([]cField, 0, s.typ.NumField())
	var end, align [2]int
	for i := range s.typ.NumField() {
		f, err := cFieldOf(s.typ.Field(i))
		if err != nil {
			return fmt.Errorf("%s: %w", s.typ, err)
		}
		for p := range 2 {
			f.offset[p] = roundUp(end[p], f.align[p])
			end[p] = f.offset[p] + f.size[p]
			align[p] = max(align[p], f.align[p])
		}
		fields = append(fields, f)
	}
	fmt.Fprintf(b, "/* %s (engine %s) */\nstruct %s {\n", s.doc, s.typ.Name(), s.name)
	for _, f := range fields {
		sep := " "
		if strings.HasSuffix(f.ctype, "*") {
			sep = ""
		}
		fmt.Fprintf(b, "    %s%s%s;\n", f.ctype, sep, f.name)
	}
	b.WriteString("};\n")
	for _, f := range fields {
		fmt.Fprintf(b, "_Static_assert(offsetof(struct %s, %s) == (sizeof(void *) == 8 ? %d : %d), \"engine %s.%s\");\n",
			s.name, f.name, f.offset[0], f.offset[1], s.typ.Name(), f.name)
	}
	fmt.Fprintf(b, "_Static_assert(sizeof(struct %s) == (sizeof(void *) == 8 ? %d : %d), \"engine %s\");\n\n",
		s.name, roundUp(end[0], align[0]), roundUp(end[1], align[1]), s.typ.Name())
	return nil
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

func writeDirectPlan(b *strings.Builder) {
	b.WriteString("/* engine directPlan[PLAN_GETS | PLAN_PUTS][step]: the steps of a sync in which\n" +
		" * only direct requests were made, from STEP_PHASE_A until STEP_OVER, each\n" +
		" * after a barrier (faces/ebsp/core_api.c runs it without the engine). */\n" +
		"static const struct engine_plan_step engine_direct_plan[4][STEP_COUNT] = {\n")
	for f, plan := range directPlan {
		b.WriteString("    {")
		for s, p := range plan {
			if s > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "{%d, %d}", p.action, p.next)
		}
		fmt.Fprintf(b, "}, /* %s */\n", planName(f))
	}
	b.WriteString("};\n\n")
}

func planName(f int) string {
	switch f {
	case planGets:
		return "direct gets"
	case planPuts:
		return "direct puts"
	case planGets | planPuts:
		return "both"
	}
	return "neither"
}
