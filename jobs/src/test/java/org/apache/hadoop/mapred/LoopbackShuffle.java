package org.apache.hadoop.mapred;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Moves a running ShuffleHandler's listener from every interface to loopback, on the same port.
 * Hadoop 3.4.2's ShuffleHandler binds {@code new InetSocketAddress(port)} (the wildcard address)
 * and has no configuration key for the host, and MiniMRYarnCluster forces that class as the
 * NodeManager's shuffle service, so {@code bin/sodm-minicluster} left this one listener open to
 * the network. In this package for the handler's protected and package-private parts (its channel
 * group, its handler context, the channel initializer); SSL is off in the minicluster.
 */
public final class LoopbackShuffle {
  private LoopbackShuffle() {}

  /** Rebinds {@code h}'s server channel to 127.0.0.1 on its port; returns the port. */
  public static int rebind(ShuffleHandler h) throws InterruptedException {
    Channel server = null;
    for (Channel c : h.allChannels) if (c instanceof ServerChannel) server = c;
    if (server == null) throw new IllegalStateException("the shuffle handler has no server channel (not started?)");
    int port = ((InetSocketAddress) server.localAddress()).getPort();
    ShuffleChannelHandlerContext ctx = h.createHandlerContext();
    ctx.setPort(port);
    ServerBootstrap b = new ServerBootstrap().group(new NioEventLoopGroup(1), new NioEventLoopGroup())
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childHandler(new ShuffleChannelInitializer(ctx, null));
    server.close().sync();
    Channel ch = b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).sync().channel();
    h.allChannels.add(ch);
    return port;
  }
}
