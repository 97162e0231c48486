package dev.slipway.testing;

import dev.slipway.store.Dialect;
import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.extension.AfterClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.BeforeClassTemplateInvocationCallback;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.annotation.Annotation;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class's tests run once per store kind of {@link TestStore#kinds()}: on H2, and on PostgreSQL too when
 * {@code SLIPWAY_TEST_POSTGRES_URL} is set, each run named after its kind. A {@link ServerPerStore} or
 * {@link DatabasePerStore} on a static field of the class gives the server or database of the kind that runs
 * (and its {@code kind()}); a class with neither takes the kind as a {@code Dialect} constructor parameter.
 * Static methods marked {@link Before} and {@link After} run before and after the tests of each kind, inside
 * the server's or database's life ({@code @BeforeAll} and {@code @AfterAll} run once, around all kinds).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ClassTemplate
@ExtendWith(EachStore.Kinds.class)
public @interface EachStore {

    /** A static method run before the class's tests on each store kind, once its server or database is up. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @interface Before {}

    /** A static method run after the class's tests on each store kind, before its server or database closes. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @Documented
    @interface After {}

    /** One invocation of the class per store kind; the kind is in the invocation's store and resolves as a parameter. */
    final class Kinds implements ClassTemplateInvocationContextProvider {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(EachStore.class);

        /** The store kind of the invocation that runs in {@code context}. */
        static Dialect of(ExtensionContext context) {
            Dialect kind = context.getStore(NAMESPACE).get(Dialect.class, Dialect.class);
            if (kind == null) throw new IllegalStateException(context.getUniqueId() + " is not in an @EachStore class");
            return kind;
        }

        @Override
        public boolean supportsClassTemplate(ExtensionContext context) {
            return true;
        }

        @Override
        public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(ExtensionContext context) {
            return TestStore.kinds().stream().map(Kinds::invocation);
        }

        /** Runs the {@link Before} and {@link After} methods of the class (its own and inherited ones, base class first). */
        private static final class Lifecycle implements BeforeClassTemplateInvocationCallback, AfterClassTemplateInvocationCallback {
            @Override
            public void beforeClassTemplateInvocation(ExtensionContext context) throws Exception {
                for (Method m : methods(context.getRequiredTestClass(), Before.class)) invoke(m);
            }

            @Override
            public void afterClassTemplateInvocation(ExtensionContext context) throws Exception {
                Exception first = null;
                for (Method m : methods(context.getRequiredTestClass(), After.class).reversed()) {
                    try {
                        invoke(m);
                    } catch (Exception e) {
                        if (first == null) first = e; else first.addSuppressed(e);
                    }
                }
                if (first != null) throw first;
            }

            private static List<Method> methods(Class<?> type, Class<? extends Annotation> annotation) {
                List<Method> out = new ArrayList<>();
                for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                    List<Method> own = new ArrayList<>();
                    for (Method m : c.getDeclaredMethods()) {
                        if (!m.isAnnotationPresent(annotation)) continue;
                        if (!Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0) {
                            throw new IllegalStateException(m + " must be static and take no parameters");
                        }
                        own.add(m);
                    }
                    own.sort(Comparator.comparing(Method::getName));
                    out.addAll(0, own);
                }
                return out;
            }

            private static void invoke(Method m) throws Exception {
                m.setAccessible(true);
                try {
                    m.invoke(null);
                } catch (InvocationTargetException e) {
                    if (e.getCause() instanceof Exception x) throw x;
                    if (e.getCause() instanceof Error x) throw x;
                    throw e;
                }
            }
        }

        private static ClassTemplateInvocationContext invocation(Dialect kind) {
            return new ClassTemplateInvocationContext() {
                @Override
                public String getDisplayName(int invocationIndex) {
                    return kind.name();
                }

                @Override
                public List<Extension> getAdditionalExtensions() {
                    return List.of(new Lifecycle(), new ParameterResolver() {
                        @Override
                        public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
                            return p.getParameter().getType() == Dialect.class;
                        }

                        @Override
                        public Object resolveParameter(ParameterContext p, ExtensionContext c) {
                            return kind;
                        }
                    });
                }

                @Override
                public void prepareInvocation(ExtensionContext context) {
                    context.getStore(NAMESPACE).put(Dialect.class, kind);
                }
            };
        }
    }
}
