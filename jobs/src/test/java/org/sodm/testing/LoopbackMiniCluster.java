package org.sodm.testing;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.apache.hadoop.mapred.LoopbackShuffle;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.MiniHadoopClusterManager;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.api.AuxiliaryService;

/**
 * {@code bin/sodm-minicluster}'s main: Hadoop's MiniHadoopClusterManager (same options, same
 * output), then every NodeManager's shuffle listener moved to loopback ({@link LoopbackShuffle}),
 * so that no listener of the cluster is reachable from the network.
 */
public final class LoopbackMiniCluster {
  private LoopbackMiniCluster() {}

  public static void main(String[] args) throws Exception {
    MiniHadoopClusterManager m = new MiniHadoopClusterManager();
    Method parse = MiniHadoopClusterManager.class.getDeclaredMethod("parseArguments", String[].class);
    parse.setAccessible(true);
    if (!(Boolean) parse.invoke(m, (Object) args)) return;
    m.start();
    Object adapter = field(m, "mr");
    if (adapter != null) {
      MiniYARNCluster yarn = (MiniYARNCluster) field(adapter, "miniMRYarnCluster");
      Field nms = MiniYARNCluster.class.getDeclaredField("nodeManagers");
      nms.setAccessible(true);
      int count = java.lang.reflect.Array.getLength(nms.get(yarn));
      for (int i = 0; i < count; i++) {
        Object aux = yarn.getNodeManager(i).getNMContext().getAuxServices();
        Method services = aux.getClass().getDeclaredMethod("getServices");
        services.setAccessible(true);
        for (Object s : (java.util.Collection<?>) services.invoke(aux)) {
          if (s instanceof ShuffleHandler h) {
            int port = LoopbackShuffle.rebind(h);
            System.err.println("sodm-minicluster: NodeManager " + i + " shuffle on 127.0.0.1:" + port);
          } else if (s instanceof AuxiliaryService a) {
            System.err.println("sodm-minicluster: auxiliary service " + a.getName() + " left as Hadoop binds it");
          }
        }
      }
    }
    Thread.sleep(Long.MAX_VALUE);
  }

  private static Object field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return f.get(o);
  }
}
