// Provides the typed configuration (parsed once at boot) to every module.
import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './config.schema';

export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  // Registers an already parsed configuration.
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
