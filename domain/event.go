package domain

// Event is one fact an aggregate records. Concrete events are plain structs in the aggregate packages;
// EventType names them in the log ("connection.connected") and never changes once an event is written.
type Event interface {
	EventType() string
}
