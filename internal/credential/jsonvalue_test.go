package credential

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkJSONValue holds copyJSON and jsonLen to encoding/json on one value.
func checkJSONValue(tb testing.TB, v any) {
	tb.Helper()
	b, err := json.Marshal(v)
	n, ok := jsonLen(v)
	if err != nil {
		require.False(tb, ok, "jsonLen accepts what json.Marshal refuses: %v", err)
		return
	}
	if ok {
		require.Equal(tb, len(b), n, "%s", b)
	}
	c, ok := copyJSON(v)
	if !ok {
		return
	}
	var want any
	require.NoError(tb, json.Unmarshal(b, &want))
	require.Equal(tb, want, c)
}

func TestJSONValueMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 300 {
		doc := roundTrip(t, mustBuild(t, randomInput(r)))
		mutate(r, doc)
		checkJSONValue(t, doc)
	}
	for _, v := range []any{
		"a\"b\\c<d>e&f\b\f\n\r\t\x00\x1f\x7f \u2028\u2029 한글 😀", "bad \xff\xfe utf-8 \xe2\x82", 0.0, math.Copysign(0, -1), 1.0, -1.5,
		1e-7, 1e21, 1e20, 123456789012345678.0, 5e-324, math.MaxFloat64, math.Inf(1), math.NaN(),
		map[string]any{"k\xff<": []any{nil, true, false, 2.5}}, []any{}, map[string]any{},
		[]string{"not", "decoded", "types"}, map[string]any{"n": 1}, map[string]any{"t": float32(0.1)},
	} {
		checkJSONValue(t, v)
	}
	_, ok := copyJSON(map[string]any{"n": 1}) // an int: encoding/json would turn it into a float64
	require.False(t, ok)
}

func FuzzJSONValue(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5e-7,"x\u2028<"],"b":{"c":null,"d":true}}`))
	f.Add([]byte(`"\ud800 lone surrogate"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		checkJSONValue(t, v)
	})
}
