package account

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Check names one correctness property of a run.
type Check string

const (
	// StoreMismatch: the final store differs from the stream's truth (a key
	// missing, extra, or at another resourceVersion).
	StoreMismatch Check = "store-equals-truth"
	// NotReconciled: a key's newest change was never observed by a
	// successful reconcile.
	NotReconciled Check = "reconciled-after-last-change"
	// ConcurrentReconcile: two workers held the same key at once.
	ConcurrentReconcile Check = "one-worker-per-key"
	// DeleteMismatch: the handler saw a different number of deletions of a
	// key than the watch delivered plus the relists revealed.
	DeleteMismatch Check = "deletes-reach-handler"
	// StaleRead: a reader saw an older object than the writer had applied
	// before the read began.
	StaleRead Check = "no-stale-reads"
	// Renotify: a key was notified at a version the store already held
	// more often than Expect.Renotify allows (duplicates beyond one per
	// relist and resync).
	Renotify Check = "duplicates-within-contract"
	// Regressed: a handler was notified of an older version of a key than
	// the store held before (Ledger.Flag).
	Regressed Check = "notifications-in-order"
	// Isolation: a handler blocked for seconds and the informer delivered
	// nothing to the other handlers meanwhile although work was
	// outstanding (Ledger.Flag).
	Isolation Check = "slow-handler-isolated"
	// HandlerLost: a handler's last notification of a key was not the
	// key's final state (Ledger.Flag).
	HandlerLost Check = "every-handler-sees-final-state"
	// Unconverged: the run did not drain within its stated bound after the
	// stream ended (Late).
	Unconverged Check = "converged-within-bound"
)

// flaggedChecks are the checks Ledger.Flag records, in report order.
var flaggedChecks = []Check{Regressed, Isolation, HandlerLost}

// Violation is one failed check with the offending keys (the first
// MaxKeys of them) and how many there were.
type Violation struct {
	Check  Check    `json:"check"`
	Count  int      `json:"count"`
	Keys   []string `json:"keys"`
	Detail []string `json:"detail,omitempty"`
}

// MaxKeys bounds how many offending keys a Violation lists.
const MaxKeys = 10

// Expect is what the pipeline claims to have done, for Verify to check.
type Expect struct {
	// Name renders a key index for messages.
	Name func(k int) string
	// Truth returns key k's final resourceVersion and existence; nil skips
	// the store check.
	Truth func(k int) (rv uint64, exists bool)
	// Stored is the final store content by key index; Foreign lists stored
	// keys that are not in the key space at all.
	Stored  map[int]uint64
	Foreign []string
	// Reconciled: check that every key's newest change was covered.
	Reconciled bool
	// Deletes: check the handler's deletion counts.
	Deletes bool
	// Collapsed: a relist the books did not script (an API server's "410
	// Gone") may have merged a deletion and a re-creation into one update,
	// as the informer contract allows (it promises the final state, not
	// every intermediate one): the handler may then see fewer deletions of
	// a key than were emitted, never more, and at least one if the key
	// ends deleted (Truth).
	Collapsed bool
	// Renotify is how many notifications of a version the store already
	// held one key may get: the relists plus the resyncs of the run.
	Renotify int
}

// Verify checks the run's books against e and returns every violation.
func (l *Ledger) Verify(e Expect) []Violation {
	var out []Violation
	add := func(c Check, keys []int, detail func(k int) string) {
		if len(keys) == 0 {
			return
		}
		slices.Sort(keys)
		v := Violation{Check: c, Count: len(keys)}
		for _, k := range keys[:min(len(keys), MaxKeys)] {
			v.Keys = append(v.Keys, e.Name(k))
			if detail != nil {
				v.Detail = append(v.Detail, e.Name(k)+": "+detail(k))
			}
		}
		out = append(out, v)
	}
	if e.Truth != nil {
		var bad []int
		for k := range l.slots {
			want, wantOK := e.Truth(k)
			got, gotOK := e.Stored[k]
			if want != got || wantOK != gotOK {
				bad = append(bad, k)
			}
		}
		add(StoreMismatch, bad, func(k int) string {
			want, _ := e.Truth(k)
			got, ok := e.Stored[k]
			return fmt.Sprintf("truth rv=%s, store rv=%s", rvString(want, want != 0), rvString(got, ok))
		})
		if len(e.Foreign) > 0 {
			out = append(out, Violation{Check: StoreMismatch, Count: len(e.Foreign),
				Keys: e.Foreign[:min(len(e.Foreign), MaxKeys)], Detail: []string{"keys outside the stream's key space"}})
		}
	}
	if e.Reconciled {
		add(NotReconciled, l.keysWhere(func(s *slot) bool { return s.covered != s.seq }), func(k int) string {
			s := &l.slots[k]
			return fmt.Sprintf("%d changes emitted, last reconcile saw %d", s.seq, s.covered)
		})
	}
	add(ConcurrentReconcile, mapKeys(&l.mu, l.concurrent), nil)
	if e.Deletes {
		var bad []int
		for k := range l.slots {
			s := &l.slots[k]
			got, want := s.gotDeletes.Load(), s.wantDeletes
			if got == want {
				continue
			}
			if e.Collapsed && got < want {
				exists := false
				if e.Truth != nil {
					_, exists = e.Truth(k)
				}
				if exists || got > 0 {
					continue
				}
			}
			bad = append(bad, k)
		}
		add(DeleteMismatch, bad, func(k int) string {
			s := &l.slots[k]
			return fmt.Sprintf("want %d deletions, handler saw %d", s.wantDeletes, s.gotDeletes.Load())
		})
	}
	add(StaleRead, mapKeys(&l.mu, l.stale), nil)
	var dup []int
	for k := range l.renotified {
		if int(l.renotified[k].Load()) > e.Renotify {
			dup = append(dup, k)
		}
	}
	add(Renotify, dup, func(k int) string {
		return fmt.Sprintf("%d notifications of a version already stored, %d allowed", l.renotified[k].Load(), e.Renotify)
	})
	for _, c := range flaggedChecks {
		l.mu.Lock()
		m := l.flagged[c]
		l.mu.Unlock()
		add(c, mapKeys(&l.mu, m), nil)
	}
	return out
}

// Late is the violation of a run that took longer than bound, from the
// end of its stream until every change was accounted for: the stated
// convergence bound of a fault scenario.
func Late(took, bound time.Duration) Violation {
	return Violation{Check: Unconverged, Count: 1, Keys: []string{},
		Detail: []string{fmt.Sprintf("drained %v after the stream ended, bound %v", took.Round(time.Millisecond), bound)}}
}

func (l *Ledger) keysWhere(bad func(*slot) bool) []int {
	var keys []int
	for k := range l.slots {
		s := &l.slots[k]
		s.mu.Lock()
		b := bad(s)
		s.mu.Unlock()
		if b {
			keys = append(keys, k)
		}
	}
	return keys
}

func mapKeys(mu interface {
	Lock()
	Unlock()
}, m map[int]int) []int {
	mu.Lock()
	defer mu.Unlock()
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func rvString(rv uint64, ok bool) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprint(rv)
}

// Summary renders violations as one line per check, for an error message.
func Summary(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%s: %d keys, e.g. %s", v.Check, v.Count, strings.Join(v.Keys, " "))
		if len(v.Detail) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(v.Detail[:min(3, len(v.Detail))], "; "))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Verdict is what a load run's checks found, kept under the same JSON
// names by every kind of run (pipeline or whole controller): the ledger's
// violations, whether the run stalled, and how many reconciles failed
// outside the injected error rate.
type Verdict struct {
	ProcessErrors int64 `json:"process_errors"`
	// Skipped counts notifications handlers dropped by panicking, which
	// the ledger forgave as the informer's panic policy allows
	// (Ledger.Skip).
	Skipped    int64       `json:"skipped_notifications,omitempty"`
	Stalled    bool        `json:"stalled"`
	Violations []Violation `json:"violations"`
}
