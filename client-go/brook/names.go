package brook

import "regexp"

// namePattern is the broker's rule for topic and group names (also not "." or "..").
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9._-]{1,249}$`)

// validName: the broker would take this topic or group name.
func validName(name string) bool {
	return namePattern.MatchString(name) && name != "." && name != ".."
}
