// Saved views of the console.
import { Module } from '@nestjs/common';
import { SavedViewsController } from './saved-views.controller';
import { SavedViewsRepository } from './saved-views.repository';
import { SavedViewsService } from './saved-views.service';

@Module({ controllers: [SavedViewsController], providers: [SavedViewsService, SavedViewsRepository] })
export class SavedViewsModule {}
