package dev.slipway.testing;

import dev.slipway.store.StoreKind;
import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class's tests run once per store kind of {@link TestStore#kinds()}: on H2, and on PostgreSQL too when
 * {@code SLIPWAY_TEST_POSTGRES_URL} is set, each run named after its kind. A {@link ServerPerStore} or
 * {@link DatabasePerStore} on a static field of the class gives the server or database of the kind that runs
 * (and its {@code kind()}); a class with neither takes the kind as a {@code StoreKind} constructor parameter.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ClassTemplate
@ExtendWith(EachStore.Kinds.class)
public @interface EachStore {

    /** One invocation of the class per store kind; the kind is in the invocation's store and resolves as a parameter. */
    final class Kinds implements ClassTemplateInvocationContextProvider {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(EachStore.class);

        /** The store kind of the invocation that runs in {@code context}. */
        static StoreKind of(ExtensionContext context) {
            StoreKind kind = context.getStore(NAMESPACE).get(StoreKind.class, StoreKind.class);
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

        private static ClassTemplateInvocationContext invocation(StoreKind kind) {
            return new ClassTemplateInvocationContext() {
                @Override
                public String getDisplayName(int invocationIndex) {
                    return kind.name();
                }

                @Override
                public List<Extension> getAdditionalExtensions() {
                    return List.of(new ParameterResolver() {
                        @Override
                        public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
                            return p.getParameter().getType() == StoreKind.class;
                        }

                        @Override
                        public Object resolveParameter(ParameterContext p, ExtensionContext c) {
                            return kind;
                        }
                    });
                }

                @Override
                public void prepareInvocation(ExtensionContext context) {
                    context.getStore(NAMESPACE).put(StoreKind.class, kind);
                }
            };
        }
    }
}
