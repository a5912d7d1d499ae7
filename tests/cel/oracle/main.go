// Command oracle evaluates CEL expressions as Kubernetes 1.32's API server
// does for CRD rules (k8s.io/apiserver/pkg/cel/environment's base
// environment, cel-go v0.22): one JSON line per expression on stdin
// ({"expr": "...", "self": <JSON value, optional>}), one answer per line on
// stdout ({"value": <tagged value>} or {"error": "..."}), tagged as
// tests/cel/cel_conformance.c reads them. The differential test
// (tests/cel/differential.py) compares cel/ with it.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

func tag(v ref.Val) (interface{}, error) {
	switch x := v.(type) {
	case types.Null:
		return map[string]interface{}{"null": nil}, nil
	case types.Bool:
		return map[string]interface{}{"bool": bool(x)}, nil
	case types.Int:
		return map[string]interface{}{"int": strconv.FormatInt(int64(x), 10)}, nil
	case types.Uint:
		return map[string]interface{}{"uint": strconv.FormatUint(uint64(x), 10)}, nil
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) {
			return map[string]interface{}{"double": "NaN"}, nil
		}
		if math.IsInf(f, 1) {
			return map[string]interface{}{"double": "Infinity"}, nil
		}
		if math.IsInf(f, -1) {
			return map[string]interface{}{"double": "-Infinity"}, nil
		}
		return map[string]interface{}{"double": f}, nil
	case types.String:
		return map[string]interface{}{"string": string(x)}, nil
	case types.Bytes:
		return map[string]interface{}{"bytes": base64.StdEncoding.EncodeToString([]byte(x))}, nil
	case types.Duration:
		return map[string]interface{}{"duration": []int64{int64(x.Duration.Seconds()), int64(x.Duration.Nanoseconds() % 1e9)}}, nil
	case types.Timestamp:
		return map[string]interface{}{"timestamp": []int64{x.Time.Unix(), int64(x.Time.Nanosecond())}}, nil
	}
	if o, ok := v.(*types.Optional); ok {
		if !o.HasValue() {
			return map[string]interface{}{"optional": nil}, nil
		}
		t, err := tag(o.GetValue())
		if err != nil {
			return nil, err
		}
		return map[string]interface{}{"optional": t}, nil
	}
	if t, ok := v.(ref.Type); ok {
		return map[string]interface{}{"type": t.TypeName()}, nil
	}
	if l, ok := v.(traits.Lister); ok {
		out := []interface{}{}
		n := int64(l.Size().(types.Int))
		for i := int64(0); i < n; i++ {
			e, err := tag(l.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return map[string]interface{}{"list": out}, nil
	}
	if m, ok := v.(traits.Mapper); ok {
		out := [][]interface{}{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			kt, err := tag(k)
			if err != nil {
				return nil, err
			}
			vt, err := tag(m.Get(k))
			if err != nil {
				return nil, err
			}
			out = append(out, []interface{}{kt, vt})
		}
		sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i][0]) < fmt.Sprint(out[j][0]) })
		return map[string]interface{}{"map": out}, nil
	}
	return nil, fmt.Errorf("untagged value %T", v)
}

// decoded turns json.Numbers into int64 (integral) or float64, as the API
// server's decoding of a custom resource does.
func decoded(v interface{}) interface{} {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []interface{}:
		for i := range x {
			x[i] = decoded(x[i])
		}
	case map[string]interface{}:
		for k := range x {
			x[k] = decoded(x[k])
		}
	}
	return v
}

func main() {
	envs := environment.MustBaseEnvSet(version.MajorMinor(1, 32), true)
	env, err := envs.Env(environment.StoredExpressions)
	if err != nil {
		panic(err)
	}
	env, err = env.Extend(cel.Variable("self", cel.DynType))
	if err != nil {
		panic(err)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Expr string      `json:"expr"`
			Self interface{} `json:"self"`
		}
		answer := map[string]interface{}{}
		dec := json.NewDecoder(bytes.NewReader(in.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&req); err != nil {
			answer["error"] = "bad request: " + err.Error()
		} else if ast, iss := env.Compile(req.Expr); iss.Err() != nil {
			answer["compile"] = iss.Err().Error()
		} else if prg, err := env.Program(ast, cel.CostLimit(1000000)); err != nil {
			answer["compile"] = err.Error()
		} else {
			v, _, err := prg.Eval(map[string]interface{}{"self": decoded(req.Self)})
			if err != nil {
				answer["error"] = err.Error()
			} else if t, err := tag(v); err != nil {
				answer["error"] = "oracle: " + err.Error()
			} else {
				answer["value"] = t
			}
		}
		out.Encode(answer)
	}
}
