package protocols

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// A value of the wrong JSON type in a protocol file is told in the
// file's words: the field's path as the file writes it (release.evalsha,
// not the Go decoder's release.Call.evalsha), its line, what the value
// is, what the field takes, and, when the value only needs its quotes
// dropped or brackets added, how to write it.

// typeError words te, a type error of decoding b into a
// ProtocolDescription.
func typeError(b []byte, te *json.UnmarshalTypeError) error {
	var path []string
	for _, seg := range strings.Split(te.Field, ".") {
		if seg != "" && !(seg[0] >= 'A' && seg[0] <= 'Z') { // the decoder names embedded structs (Call); the file does not
			path = append(path, seg)
		}
	}
	field := strings.Join(path, ".")
	ft := fieldType(reflect.TypeFor[ProtocolDescription](), path)
	line, raw := locate(b, path)
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if ft == nil || line == 0 || dec.Decode(&v) != nil {
		return fmt.Errorf("field %q: %s where %s is wanted", field, kindWords(te.Value), wantWords(te.Type, ""))
	}
	want := wantWords(ft, path[len(path)-1])
	list, isList := v.([]any)
	if isList && ft.Kind() == reflect.Slice && te.Type != ft {
		// An element is of the wrong type: name the first of its kind.
		for i, e := range list {
			if k, _, _ := strings.Cut(te.Value, " "); jsonKind(e) == k {
				return fmt.Errorf("field %q (line %d) holds %s; it takes %s", field, line+elemLines(raw, i), valueWords(e), want)
			}
		}
		return fmt.Errorf("field %q (line %d) holds %s; it takes %s", field, line, kindWords(te.Value), want)
	}
	return fmt.Errorf("field %q (line %d) is %s; it takes %s%s", field, line, valueWords(v), want, rewrite(v, ft))
}

// fieldType is the type of the field at path in struct t (nil: none).
func fieldType(t reflect.Type, path []string) reflect.Type {
	for _, name := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		if t = jsonFields(t)[name]; t == nil {
			return nil
		}
	}
	return t
}

// locate finds the value at path (object keys from the top) in b: its
// line and its text; line 0: not found.
func locate(b []byte, path []string) (int, json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(b))
	for depth := 0; depth < len(path); {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return 0, nil
		}
		for {
			tok, err := dec.Token()
			if err != nil || tok == json.Delim('}') {
				return 0, nil
			}
			if tok == path[depth] {
				break
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return 0, nil
			}
		}
		depth++
		if depth < len(path) {
			continue
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return 0, nil
		}
		start := max(int(dec.InputOffset())-len(raw), 0)
		return bytes.Count(b[:start], []byte("\n")) + 1, raw
	}
	return 0, nil
}

// elemLines is how many lines list's element i starts below list.
func elemLines(list json.RawMessage, i int) int {
	dec := json.NewDecoder(bytes.NewReader(list))
	if _, err := dec.Token(); err != nil {
		return 0
	}
	var e json.RawMessage
	for range i + 1 {
		if dec.Decode(&e) != nil {
			return 0
		}
	}
	start := max(int(dec.InputOffset())-len(e), 0)
	return bytes.Count(list[:start], []byte("\n"))
}

// jsonKind is the decoder's word for v's JSON type.
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// kindWords words the decoder's name of a JSON type: "a string".
func kindWords(kind string) string {
	switch k, rest, _ := strings.Cut(kind, " "); k {
	case "string":
		return "a string"
	case "number":
		if rest != "" {
			return "the number " + rest
		}
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return kind
}

// valueWords words a decoded value: `the string "true"`, `the number 42`.
func valueWords(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", v)
	case json.Number:
		return "the number " + v.String()
	case bool:
		return fmt.Sprint(v)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// wantWords words what a field of type t called name takes.
func wantWords(t reflect.Type, name string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[Script]():
		return "a string or a list of lines"
	case reflect.TypeFor[[]ReplyValue]():
		return "a list of replies, each null, an integer or a string"
	case reflect.TypeFor[ReplyValue]():
		return "a reply: null, an integer or a string"
	case reflect.TypeFor[[]string]():
		return "a list of strings"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		if strings.HasSuffix(name, "_ms") {
			return "a whole number of milliseconds"
		}
		return "a whole number"
	case reflect.Struct:
		return "an object"
	}
	return t.String()
}

// rewrite shows how to write v as a field of type t takes it, when only
// its quotes or brackets are wrong.
func rewrite(v any, t reflect.Type) string {
	s, ok := v.(string)
	switch {
	case !ok && t == reflect.TypeFor[[]ReplyValue]() && (v == nil || jsonKind(v) == "number"):
		return fmt.Sprintf("; put it in a list: [%v]", valueText(v))
	case !ok:
		return ""
	case t.Kind() == reflect.Bool && (s == "true" || s == "false"),
		(t.Kind() == reflect.Int || t.Kind() == reflect.Int64) && json.Valid([]byte(s)) && strings.Trim(s, "0123456789") == "":
		return "; write it without quotes: " + s
	case t == reflect.TypeFor[[]ReplyValue](), t == reflect.TypeFor[[]string]():
		return fmt.Sprintf("; put it in a list: [%q]", s)
	}
	return ""
}

// valueText is v as JSON.
func valueText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// rawKind is a value of b's JSON type, for jsonKind.
func rawKind(b []byte) any {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	_ = dec.Decode(&v)
	return v
}
