package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/go-jose/go-jose/v4"
)

// ParsePrivateKeyPEM parses a PEM private key (PKCS #8, SEC 1 "EC PRIVATE
// KEY" or PKCS #1 "RSA PRIVATE KEY"), as used for [ClientAuth.Key] and
// [Options.DPoP]. Its errors never quote the key.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("oauth: no PEM block in private key")
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: cannot parse %s private key", block.Type)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: unsupported private key type %T", key)
	}
	return s, nil
}

// algorithmFor returns the JWS algorithm that fits key.
func algorithmFor(key crypto.Signer) (jose.SignatureAlgorithm, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case *rsa.PrivateKey:
		return jose.RS256, nil
	case ed25519.PrivateKey:
		return jose.EdDSA, nil
	}
	return "", fmt.Errorf("unsupported signing key type %T", key)
}

// signJWT signs claims as a compact JWS with typ and, if set, kid. With
// embedJWK the public key goes in the header (DPoP proofs).
func signJWT(key crypto.Signer, alg jose.SignatureAlgorithm, typ, kid string, embedJWK bool, claims any) (string, error) {
	if alg == "" {
		var err error
		if alg, err = algorithmFor(key); err != nil {
			return "", err
		}
	}
	opts := (&jose.SignerOptions{EmbedJWK: embedJWK}).WithType(jose.ContentType(typ))
	sk := jose.SigningKey{Algorithm: alg, Key: key}
	if kid != "" {
		sk.Key = jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: string(alg)}
	}
	signer, err := jose.NewSigner(sk, opts)
	if err != nil {
		return "", fmt.Errorf("signer: %v", err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("sign: %v", err)
	}
	return obj.CompactSerialize()
}
