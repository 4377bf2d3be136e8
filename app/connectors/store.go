package connectors

import (
	"context"

	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
)

func loadState(ctx context.Context, s *Service, stream string) (login.State, int64, error) {
	return eventstore.LoadState(ctx, s.Opts.Store, stream, loginAggregate)
}

func executeSwitch(ctx context.Context, s *Service, actor string, ev login.SwitchSet) (eventstore.Position, error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, login.SwitchStreamName(ev.Owner), switchAggregate, login.SwitchCommand(login.SetSwitch{Event: ev}), s.MD(actor))
	return res.Position, err
}
