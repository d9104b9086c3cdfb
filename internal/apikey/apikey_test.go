package apikey

import (
	"testing"

	"github.com/google/uuid"
)

func TestNewParseMatches(t *testing.T) {
	id := uuid.New()
	key, hash, err := New(id, ModeTest)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(key)
	if err != nil || got != id {
		t.Fatalf("Parse(%q) = %v, %v; want %v", key, got, err, id)
	}
	if !Matches(key, hash) {
		t.Fatal("key does not match its own hash")
	}
	if Matches(key[:len(key)-1]+"A", hash) && key[len(key)-1] != 'A' {
		t.Fatal("altered key matches")
	}
}

func TestParseRejects(t *testing.T) {
	id := uuid.New()
	key, _, _ := New(id, ModeLive)
	for _, bad := range []string{"", "bdg", key + "x", "xyz" + key[3:], "bdg_prod" + key[8:], key[:20]} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestRoleRank(t *testing.T) {
	if !(RoleRank(RoleViewer) < RoleRank(RoleManager) && RoleRank(RoleManager) < RoleRank(RoleOwner)) {
		t.Fatal("roles out of order")
	}
	if ValidRole("ADMIN") || RoleRank("") != 0 {
		t.Fatal("unknown role accepted")
	}
}

// TestEveryKeyParses guards the secret alphabet: base64url secrets contain "_" about half the time.
func TestEveryKeyParses(t *testing.T) {
	for i := 0; i < 500; i++ {
		id := uuid.New()
		key, _, err := New(id, ModeLive)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Parse(key); err != nil || got != id {
			t.Fatalf("Parse(%q) = %v, %v", key, got, err)
		}
	}
}
