package browser

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// maxSnapshotLines caps the accessibility snapshot.
const maxSnapshotLines = 2000

// skipRoles are accessibility roles that carry nothing of their own: their children are shown in
// their place.
var skipRoles = map[string]bool{"none": true, "generic": true, "InlineTextBox": true, "LineBreak": true, "presentation": true, "RootWebArea": false}

// snapshot renders the page's accessibility tree as an indented list, one element a line:
//
//   - heading "Sign in" [ref=e12]
//   - textbox "Email" [ref=e15]
//
// A ref is the element's DOM backend node id, which Chromium keeps for as long as the node exists, so a
// ref read once stays valid across calls until the page replaces the element. Text nodes are shown
// without a ref and only when they add to their parent's name. Field values are never shown (they may
// be secrets the user typed). Output beyond maxChars bytes or maxSnapshotLines lines is cut.
func snapshot(page *rod.Page, maxChars int) (string, bool, error) {
	tree, err := proto.AccessibilityGetFullAXTree{}.Call(page)
	if err != nil {
		return "", false, fmt.Errorf("accessibility tree: %w", err)
	}
	if len(tree.Nodes) == 0 {
		return "", false, nil
	}
	byID := make(map[proto.AccessibilityAXNodeID]*proto.AccessibilityAXNode, len(tree.Nodes))
	for _, n := range tree.Nodes {
		byID[n.NodeID] = n
	}
	var b strings.Builder
	lines, cut := 0, false
	var walk func(n *proto.AccessibilityAXNode, depth int, parentName string)
	walk = func(n *proto.AccessibilityAXNode, depth int, parentName string) {
		if cut {
			return
		}
		role, name := axString(n.Role), strings.TrimSpace(axString(n.Name))
		show := !n.Ignored && !(skipRoles[role] && name == "")
		if role == "StaticText" {
			show = name != "" && !strings.Contains(parentName, name)
		}
		childDepth := depth
		if show {
			if lines >= maxSnapshotLines || b.Len() >= maxChars {
				cut = true
				return
			}
			b.WriteString(strings.Repeat("  ", depth))
			if role == "StaticText" {
				b.WriteString("- text " + strconv.Quote(clip(name, 200)))
			} else {
				b.WriteString("- " + role)
				if name != "" {
					b.WriteString(" " + strconv.Quote(clip(name, 200)))
				}
				for _, p := range n.Properties {
					switch p.Name {
					case proto.AccessibilityAXPropertyNameChecked, proto.AccessibilityAXPropertyNameDisabled,
						proto.AccessibilityAXPropertyNameExpanded, proto.AccessibilityAXPropertyNameSelected,
						proto.AccessibilityAXPropertyNameRequired:
						if v := axString(p.Value); v != "" && v != "false" {
							b.WriteString(" [" + string(p.Name) + "]")
						}
					case proto.AccessibilityAXPropertyNameLevel:
						b.WriteString(" [level=" + axString(p.Value) + "]")
					}
				}
				if n.BackendDOMNodeID != 0 {
					fmt.Fprintf(&b, " [ref=e%d]", n.BackendDOMNodeID)
				}
			}
			b.WriteByte('\n')
			lines++
			childDepth = depth + 1
			if name != "" {
				parentName = name
			}
		}
		for _, id := range n.ChildIDs {
			if c := byID[id]; c != nil {
				walk(c, childDepth, parentName)
			}
		}
	}
	walk(tree.Nodes[0], 0, "")
	return b.String(), cut, nil
}

func axString(v *proto.AccessibilityAXValue) string {
	if v == nil {
		return ""
	}
	switch x := v.Value.Val().(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	out, _ := truncate(s, n)
	return out + "…"
}
