import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { undo } from '../../coord/undo';
import { ownerOption, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function undoCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('undo', "put back a content custody displaced (an event's detail.saved); what it replaces is kept, so an undo is undoable")
    .argument('<event>', 'event ID of a restored, displaced or undone event (coord events shows them)')
    .addOption(ownerOption())
    .action(async (eventId: string, options: CommonOptions) => emit(await runUndo(eventId, options)));
}

async function runUndo(rawId: string, options: CommonOptions): Promise<Reply> {
  if (!/^\d{1,15}$/.test(rawId)) throw new IcError('INVALID_INPUT', `"${rawId}" is not an event ID (a positive integer; coord events shows them)`);
  const owner = await resolveOwner(options, process.env);
  return withContext(options, true, async (ctx) => {
    const result = await undo(ctx, { eventId: Number(rawId), owner });
    const kept = result.saved === null ? '' : `; what it replaced is kept: coord undo ${result.event}`;
    return success({ ...result }, () => `put back ${JSON.stringify(result.path)} as event ${result.undid} kept it (git blob ${result.blob.slice(0, 12)})${kept}`);
  });
}
