package chain

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBuildMerkle_EveryProofLeadsToRoot(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 100} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			digests := make([][32]byte, n)
			for i := range digests {
				digests[i] = digestOf(fmt.Sprintf("cred-%d-%d", n, i))
			}
			root, proofs := BuildMerkle(digests)
			require.Len(t, proofs, n)
			for i, d := range digests {
				require.Equal(t, root, proofs[i].Root(d), "leaf %d", i)
				require.NotEqual(t, root, proofs[i].Root(digestOf("stranger")), "leaf %d", i)
			}
			if n > 1 {
				// A proof belongs to its own leaf only.
				require.NotEqual(t, root, proofs[0].Root(digests[1]))
			}
		})
	}
}

func TestBuildMerkle_KnownRoot(t *testing.T) {
	// Pins the construction (leaf and node prefixes, sorted pairs, odd node promoted) so it cannot drift unnoticed.
	a, b, c := digestOf("a"), digestOf("b"), digestOf("c")
	root, _ := BuildMerkle([][32]byte{a, b, c})
	want := parentHash(parentHash(leafHash(a), leafHash(b)), leafHash(c))
	require.Equal(t, want, root)
	swapped, _ := BuildMerkle([][32]byte{b, a, c})
	require.Equal(t, root, swapped, "sorted pairs make sibling order irrelevant")
	single, proofs := BuildMerkle([][32]byte{a})
	require.Equal(t, leafHash(a), single)
	require.Empty(t, proofs[0])
	require.NotEqual(t, a, single, "a leaf is hashed with its prefix")
}

func TestProof_JSON(t *testing.T) {
	digests := [][32]byte{digestOf("1"), digestOf("2"), digestOf("3")}
	root, proofs := BuildMerkle(digests)
	data, err := json.Marshal(proofs[2])
	require.NoError(t, err)
	var back Proof
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, root, back.Root(digests[2]))
	require.Error(t, json.Unmarshal([]byte(`["0x12"]`), &back))
	require.Error(t, json.Unmarshal([]byte(`{}`), &back))
}
