// `npm run tokens -- create|revoke|list`: manage people's API tokens from the server's shell (same service as the API).
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Command, InvalidArgumentError } from 'commander';
import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { MetricsCoreModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { TokensModule } from '../tokens/tokens.module';
import type { AuditContext } from '../audit-log/audit-log.writer';
import { ApiError } from '../common/api-error';
import { type AppConfig, ConfigError, loadConfig, withoutPassword } from '../config/config.schema';
import { TokensService } from '../tokens/tokens.service';

const CLI_ACTOR: AuditContext = { actorId: null, actorName: 'cli', role: 'system', requestId: null, clientIp: null };

@Module({})
class TokensCliModule {
  // Only what the token service needs (no HTTP, no queues).
  static forRoot(config: AppConfig) {
    return {
      module: TokensCliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule, RedisModule, MetricsCoreModule, AuthModule, TokensModule],
    };
  }
}

// Runs `work` with the token service of a Nest application context, then closes it. Names the database it works on
// (on stderr, so --json output stays clean), since a missing DATABASE_URL silently means the default database.
async function withTokens<T>(work: (tokens: TokensService) => Promise<T>): Promise<T> {
  const env: Record<string, string | undefined> = { LOG_LEVEL: 'warn', ...process.env };
  const config = loadConfig(env);
  const source = env.DATABASE_URL ? 'DATABASE_URL' : 'the default; set DATABASE_URL to choose another';
  process.stderr.write(`tokens: database ${withoutPassword(config.DATABASE_URL)} (${source})\n`);
  const app = await NestFactory.createApplicationContext(TokensCliModule.forRoot(config), { logger: ['error'] });
  try {
    return await work(app.get(TokensService));
  } finally {
    await app.close();
  }
}

// Commander parser for `--role`.
function parseRole(value: string): 'admin' | 'auditor' | 'metrics' {
  if (value !== 'admin' && value !== 'auditor' && value !== 'metrics')
    throw new InvalidArgumentError('must be admin, auditor or metrics');
  return value;
}

// Builds the command-line program (exported for tests).
export function buildProgram(out: (s: string) => void = (s) => process.stdout.write(s)): Command {
  const program = new Command('tokens').description('Create, list and revoke Hookwarden API tokens');
  program
    .command('create')
    .description('Create a token and print its secret (shown only once)')
    .requiredOption('--name <name>', 'who or what the token is for')
    .requiredOption('--role <role>', 'admin, auditor or metrics (reads /metrics only)', parseRole)
    .option('--expires <iso>', 'expiry time (ISO 8601)')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; role: 'admin' | 'auditor' | 'metrics'; expires?: string; json?: boolean }) => {
      if (opts.expires !== undefined && Number.isNaN(Date.parse(opts.expires))) {
        throw new InvalidArgumentError(`--expires: not an ISO 8601 time: ${opts.expires}`);
      }
      const created = await withTokens((t) =>
        t.create(
          {
            name: opts.name,
            role: opts.role,
            ...(opts.expires ? { expiresAt: new Date(opts.expires).toISOString() } : {}),
          },
          CLI_ACTOR,
        ),
      );
      if (opts.json) out(`${JSON.stringify(created)}\n`);
      else
        out(
          `Created ${created.role} token ${created.id} (${created.name}). Secret (shown only once):\n\n  ${created.token}\n\n`,
        );
    });
  program
    .command('revoke <id>')
    .description('Revoke a token by id')
    .action(async (id: string) => {
      const revoked = await withTokens((t) => t.revoke(id, CLI_ACTOR));
      out(`Revoked token ${revoked.id} (${revoked.name}) at ${revoked.revokedAt}\n`);
    });
  program
    .command('list')
    .description('List tokens, newest first')
    .option('--json', 'print JSON lines')
    .action(async (opts: { json?: boolean }) => {
      await withTokens(async (t) => {
        let cursor: string | undefined;
        do {
          const page = await t.list({ limit: 200, ...(cursor ? { cursor } : {}) });
          for (const tok of page.items) {
            if (opts.json) out(`${JSON.stringify(tok)}\n`);
            else {
              const state = tok.revokedAt
                ? 'revoked'
                : tok.expiresAt && Date.parse(tok.expiresAt) <= Date.now()
                  ? 'expired'
                  : 'active';
              out(`${tok.id}  ${tok.role.padEnd(7)}  ${state.padEnd(7)}  ${tok.prefix}…  ${tok.name}\n`);
            }
          }
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
      });
    });
  return program;
}

// Entry point: exit 0 on success, 1 on a failure with its message (78 for bad configuration).
async function main(): Promise<void> {
  try {
    await buildProgram().parseAsync(process.argv);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(78);
    }
    const message = err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`tokens: ${message}\n`);
    process.exit(1);
  }
}

if (require.main === module) void main();
