// Runs Neo4j Community embedded, with Bolt and the HTTP server (Neo4j Browser), for the embedded default.
import java.nio.file.Path;
import java.time.Duration;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;

public final class Neo4jDev {
  public static void main(String[] args) throws Exception {
    Path home = Path.of(args.length > 0 ? args[0] : ".data/neo4j").toAbsolutePath();
    int bolt = args.length > 1 ? Integer.parseInt(args[1]) : 7687;
    int http = args.length > 2 ? Integer.parseInt(args[2]) : 7474;
    String host = System.getProperty("neo4j.host", "127.0.0.1");
    // The page cache holds the store files; infra/stack.ts sizes it (and the heap) to the store it finds.
    long pagecache = Long.parseLong(System.getProperty("neo4j.pagecache.mb", "256"));
    // One transaction may take at most this much of the heap (index work writes at most 2,000 tuples a transaction):
    // a runaway query fails alone instead of starving the others.
    long txMax = Long.parseLong(System.getProperty("neo4j.transaction.max.mb", "256"));
    var builder = new DatabaseManagementServiceBuilder(home);
    // NEO4J_CONF: a neo4j.conf of further settings (Cypher planning, logs, ...); the ones set below take precedence.
    String conf = System.getProperty("neo4j.conf", "");
    if (!conf.isEmpty()) builder.loadPropertiesFromFile(Path.of(conf));
    var dbms = builder
        .setConfig(GraphDatabaseSettings.auth_enabled, false)
        .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecache))
        .setConfig(GraphDatabaseSettings.memory_transaction_max_size, ByteUnit.mebiBytes(txMax))
        .setConfig(GraphDatabaseSettings.shutdown_transaction_end_timeout, Duration.ofSeconds(2))
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress(host, bolt))
        .setConfig(HttpConnector.enabled, true)
        .setConfig(HttpConnector.listen_address, new SocketAddress(host, http))
        .setConfig(HttpsConnector.enabled, false)
        .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown));
    System.out.println("NEO4J_READY bolt://" + host + ":" + bolt + " http://" + host + ":" + http + "/browser/");
    new java.util.concurrent.CountDownLatch(1).await();
  }
}
