package oauth

import (
	"context"
	"sync"

	"golang.org/x/oauth2"
)

// TokenStore keeps tokens between flows and, for a persistent
// implementation, between runs. Keys are opaque strings built by the
// handlers from the client identity and the server's resource URI.
//
// Implementations must be safe for concurrent use. A token holds secrets
// (the access and refresh tokens): a persistent store must protect them.
type TokenStore interface {
	// Get returns the token stored under key, or nil and no error if there is none.
	Get(ctx context.Context, key string) (*oauth2.Token, error)
	// Put stores tok under key, replacing any previous token.
	Put(ctx context.Context, key string, tok *oauth2.Token) error
}

// memoryStore is the TokenStore of a handler given none. Its zero value is
// ready to use.
type memoryStore struct {
	mu     sync.Mutex
	tokens map[string]*oauth2.Token
}

func (s *memoryStore) Get(_ context.Context, key string) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[key]; ok {
		c := *t
		return &c, nil
	}
	return nil, nil
}

func (s *memoryStore) Put(_ context.Context, key string, tok *oauth2.Token) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = make(map[string]*oauth2.Token)
	}
	c := *tok
	s.tokens[key] = &c
	return nil
}

func storeKey(clientID, resource string) string { return clientID + " " + resource }
