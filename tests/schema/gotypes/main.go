// Command gotypes writes schema/go_zero.inc: for every struct type of the
// built-in kinds (k8s.io/api, apiextensions, apiregistration, the
// apimachinery types they hold, at the version of the schema tables), the
// fields the API server writes even when they are not set, because Go's
// encoding/json writes them: a struct is never omitted (an embedded
// ObjectMeta gives "metadata": {"creationTimestamp": null}, a status
// struct {}), and a field without omitempty is written with its zero value
// (a nil slice as null, an int32 as 0). smp_stored_form adds them
// (apply/defaults.c). A test-side generator in tests/, as Go serves the
// tests only: the product never runs Go, and tests/schema/go_zero_fresh.sh
// checks the committed file against this program where Go is installed.
//
//	go run . > ../../../schema/go_zero.inc
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	aggv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
)

type entry struct{ typ, field, zero string }

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// openapiName is the OpenAPI definition name of a Go type, as the
// Kubernetes OpenAPI document spells it: k8s.io/api/apps/v1.Deployment is
// io.k8s.api.apps.v1.Deployment.
func openapiName(t reflect.Type) string {
	p := t.PkgPath()
	dom, rest, _ := strings.Cut(p, "/")
	parts := strings.Split(dom, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name()
}

// isEmpty is encoding/json's isEmptyValue: what omitempty leaves out.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// zeroJSON is what encoding/json writes for the zero value of t, or "{}"
// with struct=true for a plain struct, whose own fields are listed apart.
func zeroJSON(t reflect.Type) (string, bool) {
	if t.Kind() == reflect.Struct && !t.Implements(marshaler) && !reflect.PointerTo(t).Implements(marshaler) {
		return "{}", true
	}
	b, err := json.Marshal(reflect.New(t).Interface())
	if err != nil {
		panic(err)
	}
	return string(b), false
}

type walker struct {
	seen    map[reflect.Type]bool
	entries []entry
}

// fields lists the written-when-unset fields of struct t (embedded inline
// structs flattened into it) and walks every struct type t holds.
func (w *walker) fields(owner string, t reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			w.fields(owner, f.Type)
			continue
		}
		if name == "" {
			name = f.Name
		}
		w.visit(f.Type)
		zero := reflect.New(f.Type).Elem()
		if strings.Contains(","+opts+",", ",omitempty,") && isEmpty(zero) {
			// Omitted when empty: a value that decodes to the zero
			// value (a string "", a number 0, false, an empty list or
			// map) is not written back. Pointers keep what they hold.
			switch f.Type.Kind() {
			case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16,
				reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
				reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64,
				reflect.Slice, reflect.Map:
				w.entries = append(w.entries, entry{owner, name, "omit"})
			}
			continue
		}
		lit, isStruct := zeroJSON(f.Type)
		if isStruct {
			lit = "{}"
		}
		w.entries = append(w.entries, entry{owner, name, lit})
	}
}

// visit walks the struct types reachable from t.
func (w *walker) visit(t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map ||
		t.Kind() == reflect.Array {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || w.seen[t] || t.PkgPath() == "" {
		return
	}
	w.seen[t] = true
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return
	}
	w.fields(openapiName(t), t)
}

func main() {
	s := runtime.NewScheme()
	must(scheme.AddToScheme(s))
	must(apiextv1.AddToScheme(s))
	must(apiextv1beta1.AddToScheme(s))
	must(aggv1.AddToScheme(s))
	must(aggv1beta1.AddToScheme(s))
	w := &walker{seen: map[reflect.Type]bool{}}
	for gvk, t := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		w.visit(t)
	}
	sort.Slice(w.entries, func(i, j int) bool {
		a, b := w.entries[i], w.entries[j]
		if a.typ != b.typ {
			return a.typ < b.typ
		}
		return a.field < b.field
	})
	fmt.Println("/* Generated by tests/schema/gotypes (go run . > ../../../schema/go_zero.inc) from")
	fmt.Println(" * the Go types of k8s.io/api, apiextensions-apiserver and kube-aggregator " +
		version() + ": do not edit.")
	fmt.Println(" * Per struct type (OpenAPI name), the fields encoding/json writes when they")
	fmt.Println(" * are not set, with what it writes ({}: a struct, whose fields follow its")
	fmt.Println(" * own type's entries), and the omitempty fields it leaves out when they hold")
	fmt.Println(" * their zero value (omit). Sorted by type, then field. */")
	for _, e := range w.entries {
		fmt.Printf("{%q, %q, %q},\n", e.typ, e.field, e.zero)
	}
}

func version() string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "k8s.io/api" {
			return f[1]
		}
	}
	return "?"
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
