// Derives every HTTP route of a running Nest app with its authorization rule (from controller metadata).
import type { INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { listRegisteredRoutes } from '../../apps/api/src/bootstrap';
import { RequestMethod } from '@nestjs/common';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { AUTH_RULE, type AuthRule } from '../../apps/api/src/auth/auth.decorators';

export interface AppRoute {
  method: string;
  /** Nest-style path, e.g. `/v1/policies/:id/versions`. */
  path: string;
  controller: string;
  handler: string;
  rule: AuthRule | undefined;
  /** Whether the handler reads a request body (a `@Body()` parameter); raw routes: false. */
  takesBody: boolean;
}

// Joins path segments the way Nest does.
function joinPath(...parts: string[]): string {
  const joined = parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p !== '')
    .join('/');
  return `/${joined}`;
}

// Lists every route handler registered by controllers, with the same rule lookup as the global guard.
export function appRoutes(app: INestApplication): AppRoute[] {
  const scanner = new MetadataScanner();
  const routes: AppRoute[] = [];
  const seen = new Set<unknown>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const metatype = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
      if (!metatype || seen.has(metatype)) continue;
      seen.add(metatype);
      const prefixes = [Reflect.getMetadata(PATH_METADATA, metatype) ?? '/'].flat() as string[];
      const proto = metatype.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as object;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || method === undefined) continue;
        const rule =
          (Reflect.getMetadata(AUTH_RULE, handler) as AuthRule | undefined) ??
          (Reflect.getMetadata(AUTH_RULE, metatype) as AuthRule | undefined);
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, metatype, name) ?? {}) as Record<string, unknown>;
        const takesBody = Object.keys(args).some((k) => k.split(':')[0] === String(RouteParamtypes.BODY));
        for (const prefix of prefixes) {
          for (const p of [paths].flat()) {
            routes.push({
              method: RequestMethod[method],
              path: joinPath(prefix, p),
              controller: metatype.name,
              handler: name,
              rule,
              takesBody,
            });
          }
        }
      }
    }
  }
  return routes.sort((a, b) => (a.path + a.method).localeCompare(b.path + b.method));
}

/** Routes served by Fastify plugins rather than the app (API docs UI and assets, the web console). */
const FRAMEWORK_ROUTE = /^\/(docs(\/|-json$|-yaml$|$)|console(\/|$))/;

// Routes registered directly on Fastify or served by the raw router in front of it (not by a controller), with the
// rule they declare in `config.authRule`.
export function rawRoutes(app: NestFastifyApplication, controllerRoutes: AppRoute[]): AppRoute[] {
  const known = new Set(controllerRoutes.map((r) => `${r.method} ${r.path}`));
  const out: AppRoute[] = [];
  for (const r of listRegisteredRoutes(app)) {
    if (r.method === 'HEAD' || FRAMEWORK_ROUTE.test(r.url) || known.has(`${r.method} ${r.url}`)) continue;
    out.push({
      method: r.method,
      path: r.url,
      controller: r.raw ? '(raw)' : '(fastify)',
      handler: r.url,
      rule: r.config?.authRule,
      takesBody: false,
    });
  }
  return out;
}

// Fills route parameters with plausible values (signing key ids, uuids for other ids, 1 otherwise).
export function concretePath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    if (name === 'kid') return 'ed25519:0000000000000001';
    return /id$/i.test(name) ? '00000000-0000-4000-8000-000000000001' : '1';
  });
}

// The OpenAPI form of a Nest path (`:id` → `{id}`).
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
