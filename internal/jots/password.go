package jots

import (
	"golang.org/x/crypto/bcrypt"

	"github.com/workbench/workbench/domain"
)

// maxPasswordBytes is bcrypt's input limit: it ignores anything after 72 bytes, so longer passwords are
// refused rather than silently truncated.
const maxPasswordBytes = 72

func (s *Service) hashPassword(pw string) (string, error) {
	switch {
	case pw == "":
		return "", domain.Errorf(domain.CodeInvalid, "password: must not be empty")
	case len(pw) > maxPasswordBytes:
		return "", domain.Errorf(domain.CodeInvalid, "password: at most %d bytes", maxPasswordBytes)
	}
	h, err := bcrypt.GenerateFromPassword([]byte(pw), s.bcryptCost)
	if err != nil {
		return "", err
	}
	return string(h), nil
}

// CheckPassword reports whether pw is the password whose bcrypt hash is hash. It takes bcrypt's
// constant time for any candidate of the right hash.
func CheckPassword(hash, pw string) bool {
	if hash == "" || len(pw) > maxPasswordBytes {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}
