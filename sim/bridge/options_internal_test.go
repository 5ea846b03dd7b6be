package bridge

import (
	"reflect"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/auth"
	"github.com/redis/go-redis/v9/push"
)

// TestMasterOptionsCopiesSharedFields: masterOptions copies every field
// redis.Options shares with redis.FailoverOptions, as go-redis's own
// conversion does (it leaves FailingTimeoutSeconds, a cluster setting).
func TestMasterOptionsCopiesSharedFields(t *testing.T) {
	fo := &redis.FailoverOptions{}
	fv := reflect.ValueOf(fo).Elem()
	var shared []string
	for i := range fv.NumField() {
		f := fv.Type().Field(i)
		of, ok := reflect.TypeFor[redis.Options]().FieldByName(f.Name)
		if !ok || of.Type != f.Type || f.Name == "FailingTimeoutSeconds" {
			continue
		}
		shared = append(shared, f.Name)
		setDistinct(t, fv.Field(i), i)
	}
	ov := reflect.ValueOf(masterOptions(fo)).Elem()
	for _, name := range shared {
		got, want := ov.FieldByName(name), fv.FieldByName(name)
		if got.IsZero() || !sameValue(got, want) {
			t.Errorf("masterOptions: Options.%s is not FailoverOptions.%s", name, name)
		}
	}
	if len(shared) < 30 {
		t.Fatalf("only %d shared fields: %v", len(shared), shared)
	}
}

// setDistinct sets v to a non-zero value derived from i.
func setDistinct(t *testing.T, v reflect.Value, i int) {
	t.Helper()
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(i + 1))
	case reflect.String:
		v.SetString("v" + v.Type().Name())
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Func:
		v.Set(reflect.MakeFunc(v.Type(), func([]reflect.Value) []reflect.Value {
			panic("not called")
		}))
	case reflect.Interface:
		impl, ok := implementations[v.Type()]
		if !ok {
			t.Fatalf("interface field of type %s: extend implementations", v.Type())
		}
		v.Set(reflect.ValueOf(impl))
	default:
		t.Fatalf("field of kind %s: extend setDistinct", v.Kind())
	}
}

// implementations holds a value of each interface type of the shared
// fields.
var implementations = map[reflect.Type]any{
	reflect.TypeFor[auth.StreamingCredentialsProvider](): &streamingCredentials{},
	reflect.TypeFor[push.NotificationProcessor]():        &pushProcessor{},
}

type streamingCredentials struct {
	auth.StreamingCredentialsProvider
}
type pushProcessor struct{ push.NotificationProcessor }

// sameValue compares two fields set by setDistinct (funcs by pointer).
func sameValue(a, b reflect.Value) bool {
	if a.Kind() == reflect.Func {
		return a.Pointer() == b.Pointer()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
