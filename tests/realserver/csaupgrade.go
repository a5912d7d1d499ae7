package main

// The csaupgrade oracle: client-go v0.32.4's own csaupgrade package, which
// kubectl apply --server-side runs to migrate an object last applied
// client-side, run on cases read from standard input.
//
//	realserver csaupgrade < cases.jsonl
//
// Each input line is {"managedFields": [...], "csaManagers": [...],
// "manager": "...", "subresource": "..."}; each output line is
// {"managedFields": [...], "changed": bool} or {"error": "..."}. The
// client-side managers are upgraded one after the other, in the order
// given (client-go takes a set and upgrades each name in turn).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
)

type upgradeCase struct {
	ManagedFields []interface{} `json:"managedFields"`
	CSAManagers   []string      `json:"csaManagers"`
	Manager       string        `json:"manager"`
	Subresource   string        `json:"subresource"`
}

func csaUpgradeOne(line []byte) map[string]interface{} {
	var c upgradeCase
	if err := json.Unmarshal(line, &c); err != nil {
		return map[string]interface{}{"error": "bad case: " + err.Error()}
	}
	obj := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": "x", "managedFields": c.ManagedFields},
	}}
	before := obj.GetManagedFields()
	for _, m := range c.CSAManagers {
		if err := csaupgrade.UpgradeManagedFields(obj, sets.New(m), c.Manager,
			csaupgrade.Subresource(c.Subresource)); err != nil {
			return map[string]interface{}{"error": err.Error()}
		}
	}
	after := obj.GetManagedFields()
	var out []interface{}
	b, _ := json.Marshal(after)
	_ = json.Unmarshal(b, &out)
	if out == nil {
		out = []interface{}{}
	}
	return map[string]interface{}{"managedFields": out, "changed": !reflect.DeepEqual(before, after)}
}

// csaUpgrade answers every case of r on w, one JSON line each.
func csaUpgrade(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		if err := enc.Encode(csaUpgradeOne(sc.Bytes())); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading cases: %w", err)
	}
	return nil
}

func csaUpgradeMain() {
	w := bufio.NewWriter(os.Stdout)
	if err := csaUpgrade(os.Stdin, w); err != nil {
		fmt.Fprintln(os.Stderr, "realserver csaupgrade:", err)
		os.Exit(1)
	}
	w.Flush()
}
