package stores

import (
	"maps"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// checkNewIndexers validates an AddIndexers call against the indexers a store
// already has and its item count.
func checkNewIndexers(have, add cache.Indexers, items int, o *options) error {
	var conflicts []string
	for name := range add {
		if _, ok := have[name]; ok {
			conflicts = append(conflicts, name)
		}
	}
	if len(conflicts) > 0 {
		slices.Sort(conflicts)
		return conflictError(conflicts)
	}
	if o.emptyOnlyIndexers && items > 0 && len(add) > 0 {
		return ErrLateIndexers
	}
	return nil
}

// mergeIndexers returns a new map holding both sets; stores never mutate an
// Indexers map they have handed out or been handed.
func mergeIndexers(have, add cache.Indexers) cache.Indexers {
	out := make(cache.Indexers, len(have)+len(add))
	maps.Copy(out, have)
	maps.Copy(out, add)
	return out
}
