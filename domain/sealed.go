package domain

// Sealed is a secret as it may appear in an event or a read model: encrypted by the vault under the
// data key of one subject, bound to that subject and a purpose by associated data. The domain never sees
// a secret in clear and never opens one; it only carries Sealed values.
type Sealed struct {
	// Subject owns the data key that sealed Blob (a user id, "system", ...). Shredding the subject makes
	// every copy of Blob unreadable.
	Subject string `json:"subject"`
	// KeyVersion is the version of the subject's data key that sealed Blob.
	KeyVersion int `json:"key_version"`
	// Blob is 16 bytes of IV, 16 bytes of GCM tag, then the ciphertext.
	Blob []byte `json:"blob"`
}

// IsZero reports whether s holds nothing.
func (s Sealed) IsZero() bool { return len(s.Blob) == 0 }
