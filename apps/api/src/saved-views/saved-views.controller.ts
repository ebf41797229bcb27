// Saved views routes: a person's named explorer and endpoints queries, and the ones admins share.
import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, ReadRoles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ApiDoc } from '../common/openapi';
import { UuidParamPipe } from '../common/validation.pipe';
import { CreateSavedViewDto, ListSavedViewsQueryDto, SavedViewDto, SavedViewListDto } from './saved-views.dto';
import { SavedViewsService } from './saved-views.service';

@ApiTags('saved-views')
@ApiBearerAuth()
@Controller('v1/saved-views')
export class SavedViewsController {
  constructor(private readonly views: SavedViewsService) {}

  @ReadRoles()
  @ApiDoc({ summary: 'List saved views', description: 'Yours and the shared ones, by name.' })
  @Get()
  @ApiOkResponse({ type: SavedViewListDto })
  list(@CurrentPrincipal() p: Principal, @Query() q: ListSavedViewsQueryDto): Promise<SavedViewListDto> {
    return this.views.list(p, q.kind);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Save a view',
    description:
      'Names an explorer or endpoints query (the console URL’s parameters). `shared: true` (admins only; 403 ' +
      'otherwise) shows it to everyone. 409 when you have 200 views already.',
    errors: [409],
  })
  @Post()
  @ApiCreatedResponse({ type: SavedViewDto })
  create(@CurrentPrincipal() p: Principal, @Body() body: CreateSavedViewDto): Promise<SavedViewDto> {
    return this.views.create(p, body);
  }

  @ReadRoles()
  @ApiDoc({
    summary: 'Delete a saved view',
    description:
      'Your own, or (admins) a shared one. 404 for a view you cannot see; 403 for someone else’s shared one.',
    errors: [404],
  })
  @Delete(':id')
  @ApiOkResponse({ type: SavedViewDto, description: 'The deleted view.' })
  remove(@CurrentPrincipal() p: Principal, @Param('id', UuidParamPipe) id: string): Promise<SavedViewDto> {
    return this.views.delete(p, id);
  }
}
