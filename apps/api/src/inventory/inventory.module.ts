// Fleet hook inventory and release impact preview.
import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { registerInventoryParser } from './inventory.body';
import { InventoryController } from './inventory.controller';
import { InventoryRepository } from './inventory.repository';
import { InventoryService } from './inventory.service';

@Module({
  controllers: [InventoryController],
  providers: [InventoryRepository, InventoryService],
  exports: [InventoryService],
})
export class InventoryModule implements OnModuleInit {
  constructor(private readonly adapter: HttpAdapterHost) {}

  // Registers the inventory body parser on the HTTP server (absent in the worker).
  onModuleInit(): void {
    const instance = this.adapter.httpAdapter?.getInstance<FastifyInstance>();
    if (instance && typeof instance.addContentTypeParser === 'function') registerInventoryParser(instance);
  }
}
