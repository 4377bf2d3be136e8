package connectortools

import (
	"context"

	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
)

func executeSwitch(ctx context.Context, s *Service, actor string, ev login.SwitchSet) (eventstore.Position, error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, login.SwitchStreamName(ev.Owner), switchAggregate, login.SwitchCommand(login.SetSwitch{Event: ev}), s.MD(actor))
	return res.Position, err
}

// ClearSwitches implements connectorlogins.Switches: one toolswitch.cleared on the owner's switch
// stream, waited for.
func (s *Service) ClearSwitches(ctx context.Context, actor string, ev login.SwitchesCleared) error {
	res, err := eventstore.Execute(ctx, s.Opts.Store, login.SwitchStreamName(ev.Owner), switchAggregate, login.SwitchCommand(login.ClearSwitches{Event: ev}), s.MD(actor))
	if err != nil {
		return err
	}
	return s.Wait(ctx, res.Position, len(res.Events))
}
