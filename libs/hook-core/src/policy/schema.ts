// The requirements.toml zod schema: strict for what the hooks system defines, everything else carried through.
import { z } from 'zod';

/** A handler inside a managed `[[hooks.<Event>.hooks]]` table. */
export const PolicyHandlerSchema = z
  .strictObject({
    type: z.enum(['command', 'prompt', 'agent']),
    command: z.string().optional(),
    command_windows: z.string().optional(),
    commandWindows: z.string().optional(),
    timeout: z.number().optional(),
    async: z.boolean().optional(),
    statusMessage: z.string().optional(),
    additionalContextLimit: z.number().optional(),
    prompt: z.string().optional(),
  })
  .superRefine((h, ctx) => {
    if (h.type === 'command' && (h.command === undefined || h.command.trim() === '')) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'a command handler needs a non-empty `command`' });
    }
    if (h.command_windows !== undefined && h.commandWindows !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['commandWindows'],
        message: 'give either `command_windows` or `commandWindows`, not both',
      });
    }
  });

/** A matcher group `[[hooks.<Event>]]`. */
export const PolicyGroupSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(PolicyHandlerSchema),
});

/** The `[hooks]` table: managed directories plus one array of groups per event (event names checked separately). */
export const PolicyHooksSchema = z
  .object({
    managed_dir: z.string().optional(),
    windows_managed_dir: z.string().optional(),
  })
  .catchall(z.array(PolicyGroupSchema));

/** `[features]`: `hooks` (and its deprecated alias) are booleans; other feature flags are carried through. */
export const PolicyFeaturesSchema = z
  .object({
    hooks: z.boolean().optional(),
    zerocode_hooks: z.boolean().optional(),
  })
  .catchall(z.unknown());

/** The whole requirements.toml document. */
export const PolicyDocumentSchema = z
  .object({
    allow_managed_hooks_only: z.boolean().optional(),
    features: PolicyFeaturesSchema.optional(),
    hooks: PolicyHooksSchema.optional(),
  })
  .catchall(z.unknown());

export type PolicyHandler = z.infer<typeof PolicyHandlerSchema>;
export type PolicyGroup = z.infer<typeof PolicyGroupSchema>;
export type PolicyHooks = z.infer<typeof PolicyHooksSchema>;
export type PolicyDocument = z.infer<typeof PolicyDocumentSchema>;

export { INTERPRETED_TOP_KEYS, HOOKS_TABLE_KEYS, HANDLER_KEY_ORDER } from './keys';
