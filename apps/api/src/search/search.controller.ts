// Global search route: one box for the whole console.
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ReadRoles } from '../auth/auth.decorators';
import { ApiDoc } from '../common/openapi';
import { SearchQueryDto, SearchResultDto } from './search.dto';
import { SearchService } from './search.service';

@ApiTags('search')
@ApiBearerAuth()
@Controller('v1/search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @ReadRoles()
  @ApiDoc({
    summary: 'Search everything',
    description:
      'Endpoints by hostname or id, groups by name, inventoried hooks by definition hash or captured command text, ' +
      'policies by name, policy versions by message, digest or `<policy> v<n>`, releases by id, digest or ' +
      '`<group> r<n>`: grouped by kind, at most `limit` of each.',
  })
  @Get()
  @ApiOkResponse({ type: SearchResultDto })
  find(@Query() q: SearchQueryDto): Promise<SearchResultDto> {
    return this.search.search(q);
  }
}
