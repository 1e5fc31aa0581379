/*
 * Writes a synthetic OTF2 archive with the OTF2 library, for
 * bench/otf2.sh:
 *
 *     gen_archive DIR PROCESSES THREADS EVENTS_PER_LOCATION [METRICS]
 *
 * DIR/traces.otf2 is the anchor. PROCESSES MPI ranks of THREADS threads
 * each (one location per thread), every location writing about
 * EVENTS_PER_LOCATION events: regions entered and left (up to three
 * deep); on each rank's first thread, every tenth iteration, a message
 * to the next rank and one from the previous (MPI_Send, MPI_Recv), and
 * every hundredth a metric of two values (none when METRICS is 0: pipit's
 * reader fails on them, see bench/python.sh). Times are nanoseconds.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

static OTF2_FlushType
pre_flush( void* userData, OTF2_FileType fileType, OTF2_LocationRef location,
           void* callerData, bool final )
{
    (void)userData; (void)fileType; (void)location; (void)callerData; (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp
post_flush( void* userData, OTF2_FileType fileType, OTF2_LocationRef location )
{
    (void)userData; (void)fileType; (void)location;
    return 0;
}

static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush,
                                               .otf2_post_flush = post_flush };

enum { R_MAIN, R_COMPUTE, R_KERNEL, R_IO, R_SEND, R_RECV, REGIONS };
static const char* region_names[ REGIONS ] = { "main", "compute", "kernel", "io", "MPI_Send", "MPI_Recv" };

static void
check( OTF2_ErrorCode e, const char* what )
{
    if ( e != OTF2_SUCCESS )
    {
        fprintf( stderr, "gen_archive: %s: %s\n", what, OTF2_Error_GetName( e ) );
        exit( 1 );
    }
}

int
main( int argc, char** argv )
{
    if ( argc != 5 && argc != 6 )
    {
        fprintf( stderr, "usage: gen_archive DIR PROCESSES THREADS EVENTS_PER_LOCATION [METRICS]\n" );
        return 2;
    }
    const char*    dir       = argv[ 1 ];
    const uint32_t processes = (uint32_t)atoi( argv[ 2 ] );
    const uint32_t threads   = (uint32_t)atoi( argv[ 3 ] );
    const uint64_t per       = strtoull( argv[ 4 ], NULL, 10 );
    const uint64_t locations = (uint64_t)processes * threads;
    const int      metrics   = argc == 6 ? atoi( argv[ 5 ] ) : 1;

    OTF2_Archive* archive = OTF2_Archive_Open( dir, "traces", OTF2_FILEMODE_WRITE,
                                               1024 * 1024, 4 * 1024 * 1024,
                                               OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE );
    if ( !archive )
    {
        fprintf( stderr, "gen_archive: cannot open %s\n", dir );
        return 1;
    }
    check( OTF2_Archive_SetFlushCallbacks( archive, &flush_callbacks, NULL ), "flush callbacks" );
    check( OTF2_Archive_SetSerialCollectiveCallbacks( archive ), "collective callbacks" );
    check( OTF2_Archive_OpenEvtFiles( archive ), "open event files" );

    uint64_t* written = calloc( locations, sizeof( uint64_t ) );
    uint64_t  end     = 0;
    for ( uint64_t l = 0; l < locations; l++ )
    {
        uint32_t        rank   = (uint32_t)( l / threads );
        int             master = l % threads == 0;
        OTF2_EvtWriter* w      = OTF2_Archive_GetEvtWriter( archive, l );
        uint64_t        t      = 1000 + l;
        uint64_t        n      = 0;
#define EV( call ) do { check( call, #call ); n++; t += 10; } while ( 0 )
        EV( OTF2_EvtWriter_Enter( w, NULL, t, R_MAIN ) );
        for ( uint64_t i = 0; n + 12 < per; i++ )
        {
            EV( OTF2_EvtWriter_Enter( w, NULL, t, R_COMPUTE ) );
            EV( OTF2_EvtWriter_Enter( w, NULL, t, R_KERNEL ) );
            EV( OTF2_EvtWriter_Leave( w, NULL, t, R_KERNEL ) );
            EV( OTF2_EvtWriter_Enter( w, NULL, t, R_IO ) );
            EV( OTF2_EvtWriter_Leave( w, NULL, t, R_IO ) );
            EV( OTF2_EvtWriter_Leave( w, NULL, t, R_COMPUTE ) );
            if ( master && processes > 1 && i % 10 == 0 )
            {
                EV( OTF2_EvtWriter_Enter( w, NULL, t, R_SEND ) );
                EV( OTF2_EvtWriter_MpiSend( w, NULL, t, ( rank + 1 ) % processes, 0, 1, 1024 ) );
                EV( OTF2_EvtWriter_Leave( w, NULL, t, R_SEND ) );
                EV( OTF2_EvtWriter_Enter( w, NULL, t, R_RECV ) );
                EV( OTF2_EvtWriter_MpiRecv( w, NULL, t, ( rank + processes - 1 ) % processes, 0, 1, 1024 ) );
                EV( OTF2_EvtWriter_Leave( w, NULL, t, R_RECV ) );
            }
            if ( metrics && master && i % 100 == 0 )
            {
                OTF2_Type        types[ 2 ]  = { OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE };
                OTF2_MetricValue values[ 2 ];
                values[ 0 ].unsigned_int   = i;
                values[ 1 ].floating_point = 0.5 * (double)i;
                EV( OTF2_EvtWriter_Metric( w, NULL, t, 0, 2, types, values ) );
            }
        }
        EV( OTF2_EvtWriter_Leave( w, NULL, t, R_MAIN ) );
#undef EV
        written[ l ] = n;
        if ( t > end )
        {
            end = t;
        }
        check( OTF2_Archive_CloseEvtWriter( archive, w ), "close event writer" );
    }
    check( OTF2_Archive_CloseEvtFiles( archive ), "close event files" );

    check( OTF2_Archive_OpenDefFiles( archive ), "open definition files" );
    for ( uint64_t l = 0; l < locations; l++ )
    {
        OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter( archive, l );
        check( OTF2_Archive_CloseDefWriter( archive, dw ), "close definition writer" );
    }
    check( OTF2_Archive_CloseDefFiles( archive ), "close definition files" );

    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter( archive );
    check( OTF2_GlobalDefWriter_WriteClockProperties( g, 1000000000, 0, end, OTF2_UNDEFINED_TIMESTAMP ), "clock" );
    uint32_t s = 0;
    check( OTF2_GlobalDefWriter_WriteString( g, s++, "" ), "string" );
    for ( int r = 0; r < REGIONS; r++ )
    {
        check( OTF2_GlobalDefWriter_WriteString( g, s, region_names[ r ] ), "string" );
        check( OTF2_GlobalDefWriter_WriteRegion( g, r, s, s, 0,
                                                 OTF2_REGION_ROLE_FUNCTION,
                                                 r >= R_SEND ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER,
                                                 OTF2_REGION_FLAG_NONE, 0, 0, 0 ), "region" );
        s++;
    }
    uint32_t machine = s;
    check( OTF2_GlobalDefWriter_WriteString( g, s++, "machine" ), "string" );
    uint32_t node = s;
    check( OTF2_GlobalDefWriter_WriteString( g, s++, "node" ), "string" );
    check( OTF2_GlobalDefWriter_WriteSystemTreeNode( g, 0, machine, machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE ), "node" );
    uint64_t* world = calloc( processes, sizeof( uint64_t ) );
    char      name[ 64 ];
    for ( uint32_t p = 0; p < processes; p++ )
    {
        snprintf( name, sizeof name, "node %" PRIu32, p / 8 );
        if ( p % 8 == 0 )
        {
            check( OTF2_GlobalDefWriter_WriteString( g, s, name ), "string" );
            check( OTF2_GlobalDefWriter_WriteSystemTreeNode( g, 1 + p / 8, s++, node, 0 ), "node" );
        }
        snprintf( name, sizeof name, "MPI Rank %" PRIu32, p );
        check( OTF2_GlobalDefWriter_WriteString( g, s, name ), "string" );
        check( OTF2_GlobalDefWriter_WriteLocationGroup( g, p, s++, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                        1 + p / 8, OTF2_UNDEFINED_LOCATION_GROUP ), "group" );
        world[ p ] = (uint64_t)p * threads;
    }
    for ( uint64_t l = 0; l < locations; l++ )
    {
        snprintf( name, sizeof name, "Thread %" PRIu64, l % threads );
        check( OTF2_GlobalDefWriter_WriteString( g, s, name ), "string" );
        check( OTF2_GlobalDefWriter_WriteLocation( g, l, s++, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                   written[ l ], (uint32_t)( l / threads ) ), "location" );
    }
    uint64_t* ranks = calloc( processes, sizeof( uint64_t ) );
    for ( uint32_t p = 0; p < processes; p++ )
    {
        ranks[ p ] = p;
    }
    check( OTF2_GlobalDefWriter_WriteString( g, s, "MPI_COMM_WORLD" ), "string" );
    check( OTF2_GlobalDefWriter_WriteGroup( g, 0, s, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, processes, world ), "group" );
    check( OTF2_GlobalDefWriter_WriteGroup( g, 1, s, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, processes, ranks ), "group" );
    check( OTF2_GlobalDefWriter_WriteComm( g, 0, s++, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE ), "comm" );
    check( OTF2_GlobalDefWriter_WriteString( g, s, "iterations" ), "string" );
    check( OTF2_GlobalDefWriter_WriteMetricMember( g, 0, s++, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                                   OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 0 ), "metric" );
    check( OTF2_GlobalDefWriter_WriteString( g, s, "load" ), "string" );
    check( OTF2_GlobalDefWriter_WriteMetricMember( g, 1, s++, 0, OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
                                                   OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, 0 ), "metric" );
    OTF2_MetricMemberRef members[ 2 ] = { 0, 1 };
    check( OTF2_GlobalDefWriter_WriteMetricClass( g, 0, 2, members, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                                  OTF2_RECORDER_KIND_CPU ), "metric class" );
    check( OTF2_Archive_Close( archive ), "close" );
    uint64_t total = 0;
    for ( uint64_t l = 0; l < locations; l++ )
    {
        total += written[ l ];
    }
    printf( "%" PRIu64 " locations, %" PRIu64 " events\n", locations, total );
    free( written );
    free( world );
    free( ranks );
    return 0;
}
