import { Module } from '@nestjs/common';
import { EndpointsController } from './endpoints.controller';
import { EndpointsRepository } from './endpoints.repository';
import { EndpointsService } from './endpoints.service';

@Module({ controllers: [EndpointsController], providers: [EndpointsRepository, EndpointsService] })
export class EndpointsModule {}
